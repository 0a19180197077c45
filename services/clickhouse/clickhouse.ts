/**
 * ClickHouse's own HTTP interface, served by the engine inside the npm package `chdb` (libchdb.so), run by a
 * python3 ctypes launcher in its own process. python3 because the engine cannot live inside Node (its HTTP
 * threads fail their stack checks there) and python3 ships with Debian, so nothing is compiled.
 */
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { pingClickHouse } from '../../platform/clickhouse.ts';
import type { ServicesConfig } from '../config.ts';
import { ServiceError } from '../errors.ts';
import { managedService } from '../managed-service.ts';
import { assertPortsFree, commandExists, processPaths, startDetached, waitHealthy } from '../process.ts';
import type { ManagedService } from '../service.ts';

const LAUNCHER = join(dirname(fileURLToPath(import.meta.url)), 'launch.py');
// Generous: loading the 566 MB engine took longer than 30 s on a loaded 2-core machine (0.6 s when idle).
const START_TIMEOUT_MS = 90_000;

export function libchdbPath(): string {
  const require = createRequire(import.meta.url);
  try {
    return join(dirname(require.resolve('@chdb/lib-linux-x64-gnu/package.json')), 'libchdb.so');
  } catch {
    throw new ServiceError(
      'clickhouse',
      'the ClickHouse engine (npm package chdb, @chdb/lib-linux-x64-gnu) is not installed',
      'run `npm ci` on linux-x64, or set TOOLTRAIL_CLICKHOUSE_URL to your ClickHouse server',
    );
  }
}

export function clickhouseService(config: ServicesConfig): ManagedService {
  const c = config.clickhouse;
  const paths = processPaths(config.home, 'clickhouse');
  const dataDir = join(config.home, 'clickhouse');
  const healthy = () => pingClickHouse(c.url);

  return managedService({
    name: 'clickhouse',
    mode: c.mode,
    endpoint: c.url,
    paths,
    healthy,
    async start() {
      if (!commandExists('python3')) {
        throw new ServiceError(
          'clickhouse',
          'python3 is not installed (it runs the engine launcher)',
          'apt-get install python3',
        );
      }
      const lib = libchdbPath();
      if (!existsSync(lib)) throw new ServiceError('clickhouse', `${lib} is missing`, 'run `npm ci` again');
      await assertPortsFree('clickhouse', [{ port: c.port, envVar: 'TOOLTRAIL_CLICKHOUSE_PORT' }]);
      const started = startDetached(paths, 'python3', [LAUNCHER, lib, dataDir, String(c.port), '127.0.0.1']);
      await waitHealthy('clickhouse', started, healthy, START_TIMEOUT_MS, paths.logFile);
      return started;
    },
  });
}
