/**
 * Debian's PostgreSQL (the `postgresql` package), for the SQL adapter's tests: `initdb` into `.tooltrail/postgres`
 * once, then the server on a loopback port (TOOLTRAIL_POSTGRES_PORT, default 9432), trust authentication for the
 * local superuser `tooltrail`. PostgreSQL refuses to run as root, so as root it runs as the `postgres` system user
 * (created by the Debian package) through `runuser`, owning only its data and socket folders.
 */
import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdirSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { ServicesConfig } from '../config.ts';
import { POSTGRES_SUPERUSER } from '../config.ts';
import { ServiceError } from '../errors.ts';
import { managedService } from '../managed-service.ts';
import { assertPortsFree, commandExists, portOpen, processPaths, startDetached, waitHealthy } from '../process.ts';
import type { ManagedService } from '../service.ts';

/** Generous for a loaded machine: a healthy server answers in a second, and the wait ends then. */
const START_TIMEOUT_MS = 90_000;
const DEBIAN_ROOT = '/usr/lib/postgresql';
const RUN_AS = 'postgres';
const INSTALL = 'apt-get install postgresql (Debian), or set TOOLTRAIL_POSTGRES_URL to your PostgreSQL server';

/** The folder of `postgres`, `initdb` and `pg_isready`: Debian's newest version first, else the PATH. */
export function postgresBinDir(): string | undefined {
  if (existsSync(DEBIAN_ROOT)) {
    const versions = readdirSync(DEBIAN_ROOT)
      .filter((v) => /^\d+$/.test(v) && existsSync(join(DEBIAN_ROOT, v, 'bin', 'postgres')))
      .sort((a, b) => Number(b) - Number(a));
    if (versions[0]) return join(DEBIAN_ROOT, versions[0], 'bin');
  }
  if (!commandExists('postgres') || !commandExists('initdb')) return undefined;
  const found = spawnSync('sh', ['-c', 'dirname "$(readlink -f "$(command -v postgres)")"'], { encoding: 'utf8' });
  return found.stdout.trim() || undefined;
}

/** Answers true once the server accepts connections (`pg_isready`, else a TCP connect). */
export function postgresReady(url: string, port: number): Promise<boolean> {
  const bin = postgresBinDir();
  const isready = bin && existsSync(join(bin, 'pg_isready')) ? join(bin, 'pg_isready') : undefined;
  if (!isready) return portOpen(port);
  return new Promise((resolveReady) => {
    const child = spawn(isready, ['-d', url, '-t', '2'], { stdio: 'ignore' });
    child.once('error', () => resolveReady(false));
    child.once('exit', (code) => resolveReady(code === 0));
  });
}

interface RunAs {
  /** Prefix for commands: `runuser -u postgres --` as root, nothing otherwise. */
  prefix: string[];
  uid?: number;
  gid?: number;
}

function runAs(): RunAs {
  if (process.getuid?.() !== 0) return { prefix: [] };
  const id = (flag: string) => spawnSync('id', [flag, RUN_AS], { encoding: 'utf8' });
  const uid = id('-u');
  const gid = id('-g');
  if (uid.status !== 0 || gid.status !== 0 || !commandExists('runuser')) {
    throw new ServiceError(
      'postgres',
      `PostgreSQL refuses to run as root and there is no \`${RUN_AS}\` system user (or no runuser) to run it as`,
      `install Debian's postgresql package (it creates the user), or \`adduser --system --group ${RUN_AS}\``,
    );
  }
  return { prefix: ['runuser', '-u', RUN_AS, '--'], uid: Number(uid.stdout), gid: Number(gid.stdout) };
}

/**
 * The server user must be able to walk down to its data folder. The tooltrail home is ours: it gets the traverse
 * bit (not read); a folder above it that the user cannot cross is reported, never changed.
 */
function reachableByServerUser(home: string, dataDir: string, as: RunAs): void {
  chmodSync(home, statSync(home).mode | 0o001);
  const [cmd = '', ...args] = [...as.prefix, 'test', '-w', dataDir];
  if (spawnSync(cmd, args).status !== 0) {
    throw new ServiceError(
      'postgres',
      `the ${RUN_AS} user cannot reach ${dataDir}`,
      `let it cross the folders above it (chmod o+x), or set TOOLTRAIL_HOME to a folder it can reach`,
    );
  }
}

export function postgresService(config: ServicesConfig): ManagedService {
  const p = config.postgres;
  const paths = processPaths(config.home, 'postgres');
  const root = join(config.home, 'postgres');
  const dataDir = join(root, 'data');
  const socketDir = join(root, 'run');
  const healthy = () => postgresReady(p.url, p.port);

  return managedService({
    name: 'postgres',
    mode: p.mode,
    endpoint: p.url,
    paths,
    healthy,
    async start() {
      const bin = postgresBinDir();
      if (!bin) throw new ServiceError('postgres', 'PostgreSQL is not installed', INSTALL);
      await assertPortsFree('postgres', [{ port: p.port, envVar: 'TOOLTRAIL_POSTGRES_PORT' }]);
      const as = runAs();
      for (const dir of [root, dataDir, socketDir]) {
        mkdirSync(dir, { recursive: true, mode: 0o700 });
        if (as.uid !== undefined && as.gid !== undefined) chownSync(dir, as.uid, as.gid);
      }
      if (as.prefix.length > 0) reachableByServerUser(config.home, dataDir, as);
      if (!existsSync(join(dataDir, 'PG_VERSION'))) {
        const [cmd = '', ...args] = [
          ...as.prefix,
          join(bin, 'initdb'),
          `--pgdata=${dataDir}`,
          `--username=${POSTGRES_SUPERUSER}`,
          '--auth=trust',
          '--encoding=UTF8',
          '--no-locale',
          '--no-sync',
        ];
        const init = spawnSync(cmd, args, { encoding: 'utf8', cwd: root });
        if (init.status !== 0) {
          throw new ServiceError(
            'postgres',
            `initdb failed: ${(init.stderr || init.stdout).trim().split('\n').at(-1)}`,
            `remove ${dataDir} and retry`,
          );
        }
      }
      const [cmd = '', ...args] = [
        ...as.prefix,
        join(bin, 'postgres'),
        '-D',
        dataDir,
        '-p',
        String(p.port),
        '-c',
        'listen_addresses=127.0.0.1',
        '-c',
        `unix_socket_directories=${socketDir}`,
      ];
      const started = startDetached(paths, cmd, args);
      await waitHealthy('postgres', started, healthy, START_TIMEOUT_MS, paths.logFile);
      return started;
    },
  });
}
