/** The four local services as one unit: `tooltrail services up | down | status`. */
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { alertmanagerService } from './alertmanager/alertmanager.ts';
import { clickhouseService } from './clickhouse/clickhouse.ts';
import type { ServicesConfig } from './config.ts';
import { kafkaService } from './kafka/kafka.ts';
import { postgresService } from './postgres/postgres.ts';
import type { ManagedService, ServiceName, ServiceStatus } from './service.ts';

export function allServices(config: ServicesConfig): ManagedService[] {
  return [kafkaService(config), clickhouseService(config), alertmanagerService(config), postgresService(config)];
}

export interface UpResult {
  name: ServiceName;
  outcome: 'started' | 'already running' | 'external';
  endpoint: string;
  error?: Error;
}

/** Starts every local service in parallel; one failing does not stop the others from starting. */
export async function servicesUp(config: ServicesConfig): Promise<UpResult[]> {
  return Promise.all(
    allServices(config).map(async (s): Promise<UpResult> => {
      try {
        const r = await s.up();
        const outcome = s.mode === 'external' ? 'external' : r.started ? 'started' : 'already running';
        return { name: s.name, outcome, endpoint: s.endpoint };
      } catch (error) {
        return { name: s.name, outcome: 'started', endpoint: s.endpoint, error: error as Error };
      }
    }),
  );
}

export async function servicesDown(
  config: ServicesConfig,
  purge = false,
): Promise<{ name: ServiceName; stopped: boolean }[]> {
  const results = await Promise.all(allServices(config).map(async (s) => ({ name: s.name, stopped: await s.down() })));
  if (purge) {
    for (const dir of ['kafka', 'clickhouse', 'alertmanager', 'postgres'])
      rmSync(join(config.home, dir), { recursive: true, force: true });
  }
  return results;
}

export function servicesStatus(config: ServicesConfig): Promise<ServiceStatus[]> {
  return Promise.all(allServices(config).map((s) => s.status()));
}
