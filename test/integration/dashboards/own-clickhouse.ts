/**
 * A private ClickHouse (the same chdb engine and launcher as `tooltrail services`) started with a users
 * configuration of the test's choosing, on a free port, so access control can be tested without touching the
 * shared instance. The engine is clickhouse-local: it reads `config.xml` from its working directory, and its
 * `users_xml` directory (with `users.d/*.xml` merged in, as on a server) is its only user directory.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { pingClickHouse } from '../../../platform/clickhouse.ts';
import { libchdbPath } from '../../../services/clickhouse/clickhouse.ts';
import { freePort } from '../../../services/process.ts';
import { until } from '../../../testkit/wait.ts';

const LAUNCHER = join(dirname(fileURLToPath(import.meta.url)), '../../../services/clickhouse/launch.py');
const START_TIMEOUT_MS = 20_000;

export interface OwnClickHouse {
  url: string;
  /** The administrator (`default`, no password), who creates the schema. */
  admin: { user: string; password: string };
  stop(): Promise<void>;
}

const CONFIG_XML = `<clickhouse>
  <user_directories><users_xml><path>users.xml</path></users_xml></user_directories>
</clickhouse>
`;

// The administrator of this private instance only; the user under test comes from users.d.
const USERS_XML = `<clickhouse>
  <profiles><default/></profiles>
  <quotas><default/></quotas>
  <users>
    <default>
      <password></password>
      <networks><ip>127.0.0.1</ip></networks>
      <profile>default</profile>
      <quota>default</quota>
      <access_management>1</access_management>
    </default>
  </users>
</clickhouse>
`;

/** Starts the engine with `usersDFiles` copied into users.d and `env` in its environment. */
export async function startOwnClickHouse(usersDFiles: string[], env: Record<string, string>): Promise<OwnClickHouse> {
  const home = mkdtempSync(join(tmpdir(), 'tt-dash-ch-'));
  const usersD = join(home, 'users.d');
  mkdirSync(usersD);
  writeFileSync(join(home, 'config.xml'), CONFIG_XML);
  writeFileSync(join(home, 'users.xml'), USERS_XML);
  for (const file of usersDFiles) cpSync(file, join(usersD, file.split('/').pop()!));

  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  let output = '';
  const child: ChildProcess = spawn(
    'python3',
    [LAUNCHER, libchdbPath(), join(home, 'data'), String(port), '127.0.0.1'],
    {
      cwd: home,
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  child.stdout?.on('data', (b: Buffer) => {
    output += b.toString();
  });
  child.stderr?.on('data', (b: Buffer) => {
    output += b.toString();
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));

  const stop = async () => {
    if (child.exitCode === null) {
      child.kill('SIGTERM');
      await exited;
    }
    rmSync(home, { recursive: true, force: true });
  };

  const up = await until(
    'the private ClickHouse answers or exits',
    async () => (await pingClickHouse(url, 500)) || child.exitCode !== null,
    { timeoutMs: START_TIMEOUT_MS, everyMs: 100 },
  ).then(
    () => child.exitCode === null,
    () => false,
  );
  if (!up) {
    await stop();
    throw new Error(`the private ClickHouse did not start on ${url}:\n${output.slice(-2000)}`);
  }
  return { url, admin: { user: 'default', password: '' }, stop };
}
