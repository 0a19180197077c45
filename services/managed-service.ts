/**
 * What every local service does the same way: an external one is never started or stopped; `up` is a no-op while
 * the recorded process is alive and healthy, replaces a process that is alive but unhealthy, and otherwise calls
 * the service's own `start`; `down` stops the process group; `status` asks the service's health check.
 */
import { type ProcessPaths, runningPid, stopProcessGroup } from './process.ts';
import type { ManagedService, ServiceName, ServiceStatus } from './service.ts';

export interface LocalServiceSpec {
  name: ServiceName;
  mode: 'local' | 'external';
  endpoint: string;
  paths: ProcessPaths;
  healthy: () => Promise<boolean>;
  /** Checks prerequisites, starts the process and waits until it is healthy; resolves to its pid. */
  start: () => Promise<number>;
  /** How long `down` waits after SIGTERM before SIGKILL. */
  stopGraceMs?: number;
}

export function managedService(spec: LocalServiceSpec): ManagedService {
  const { name, mode, endpoint, paths, healthy } = spec;
  return {
    name,
    mode,
    endpoint,
    async up() {
      if (mode === 'external') return { started: false };
      const pid = runningPid(paths);
      if (pid !== undefined && (await healthy())) return { started: false, pid };
      if (pid !== undefined) await stopProcessGroup(paths);
      return { started: true, pid: await spec.start() };
    },
    down: () => (mode === 'external' ? Promise.resolve(false) : stopProcessGroup(paths, spec.stopGraceMs)),
    async status(): Promise<ServiceStatus> {
      const pid = mode === 'local' ? runningPid(paths) : undefined;
      return { name, mode, endpoint, healthy: await healthy(), ...(pid ? { pid } : {}) };
    },
  };
}
