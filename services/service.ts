/** What `tooltrail services` knows about each of the four services. */
export interface ServiceStatus {
  name: ServiceName;
  mode: 'local' | 'external';
  endpoint: string;
  healthy: boolean;
  /** Pid of the local process, when we started it and it is alive. */
  pid?: number;
  detail?: string;
}

export type ServiceName = 'kafka' | 'clickhouse' | 'alertmanager' | 'postgres';

export interface ManagedService {
  readonly name: ServiceName;
  readonly mode: 'local' | 'external';
  readonly endpoint: string;
  /** Starts the local process if it is not already running and healthy; `started: false` means it already was. */
  up(): Promise<{ started: boolean; pid?: number }>;
  /** Stops the local process; false when nothing was running. External services are never stopped. */
  down(): Promise<boolean>;
  status(): Promise<ServiceStatus>;
}
