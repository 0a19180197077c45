/**
 * `tooltrail services up | down | status` driven as a user would, on a private home and private ports so the
 * shared services other tests use are never touched.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { after, test } from 'node:test';
import { KAFKA_VERSION } from '../../../services/config.ts';
import { freePort, isAlive } from '../../../services/process.ts';
import { services } from '../../../testkit/services.ts';

const repo = resolve(import.meta.dirname, '../../..');
const sharedJars = join(services.home, 'cache', `kafka-${KAFKA_VERSION}`);
const homes: string[] = [];

function tempHome(withJars: boolean): string {
  const home = mkdtempSync(join(tmpdir(), 'tooltrail-home-'));
  homes.push(home);
  if (withJars) {
    assert.ok(
      existsSync(join(sharedJars, '.complete')),
      `Kafka jars not cached at ${sharedJars}: run services up once`,
    );
    mkdirSync(join(home, 'cache'), { recursive: true });
    symlinkSync(sharedJars, join(home, 'cache', `kafka-${KAFKA_VERSION}`));
  }
  return home;
}

/** Ports free now, all different (the shared services' and other engineers' fixed ones are never assumed free). */
async function freePorts(n: number): Promise<number[]> {
  const out = new Set<number>();
  while (out.size < n) out.add(await freePort());
  return [...out];
}

function cli(args: string[], env: Record<string, string>) {
  const r = spawnSync(process.execPath, [join(repo, 'bin/tooltrail.js'), ...args], {
    cwd: repo,
    encoding: 'utf8',
    env: { ...process.env, ...env },
    timeout: 120_000,
  });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** Kafka and Alertmanager pointed at the shared instances (external mode): only ClickHouse is local. */
function onlyClickHouseLocal(home: string, chPort: number): Record<string, string> {
  return {
    TOOLTRAIL_HOME: home,
    TOOLTRAIL_CLICKHOUSE_PORT: String(chPort),
    TOOLTRAIL_KAFKA_BROKERS: services.kafka.brokers.join(','),
    TOOLTRAIL_ALERTMANAGER_URL: services.alertmanager.url,
    TOOLTRAIL_POSTGRES_URL: services.postgres.url,
  };
}

after(() => {
  for (const h of homes) {
    cli(['services', 'down'], { TOOLTRAIL_HOME: h });
    rmSync(h, { recursive: true, force: true });
  }
});

test('services up starts all four, a second up is a no-op, and down leaves no process behind', async () => {
  const home = tempHome(true);
  const [kafka, controller, clickhouse, alertmanager, postgres] = await freePorts(5);
  const env = {
    TOOLTRAIL_HOME: home,
    TOOLTRAIL_KAFKA_PORT: String(kafka),
    TOOLTRAIL_KAFKA_CONTROLLER_PORT: String(controller),
    TOOLTRAIL_CLICKHOUSE_PORT: String(clickhouse),
    TOOLTRAIL_ALERTMANAGER_PORT: String(alertmanager),
    TOOLTRAIL_POSTGRES_PORT: String(postgres),
  };
  const first = cli(['services', 'up'], env);
  assert.equal(first.status, 0, first.stderr);
  assert.equal(first.stdout.match(/ started /g)?.length, 4, first.stdout);

  const second = cli(['services', 'up'], env);
  assert.equal(second.status, 0, second.stderr);
  assert.equal(second.stdout.match(/already running/g)?.length, 4, second.stdout);

  assert.equal(cli(['services', 'status'], env).status, 0);
  const pids = readdirSync(join(home, 'run')).map((f) => Number(readFileSync(join(home, 'run', f), 'utf8')));
  assert.equal(pids.length, 4);

  const down = cli(['services', 'down'], env);
  assert.equal(down.status, 0, down.stderr);
  for (const pid of pids) assert.equal(isAlive(pid), false, `pid ${pid} still alive after down`);
  // Nothing that mentions this home (the JVM, the engine launcher, alertmanager, postgres) is left running.
  const leftovers = readdirSync('/proc')
    .filter((p) => /^\d+$/.test(p))
    .filter((p) => {
      try {
        return readFileSync(`/proc/${p}/cmdline`, 'utf8').includes(home);
      } catch {
        return false;
      }
    });
  assert.deepEqual(leftovers, []);

  const status = cli(['services', 'status'], env);
  assert.notEqual(status.status, 0, 'status must fail when the services are down');
  assert.match(status.stdout, /UNHEALTHY/);
});

test('status exits non-zero when an external service is unreachable', () => {
  const r = cli(['services', 'status'], {
    TOOLTRAIL_HOME: tempHome(false),
    TOOLTRAIL_CLICKHOUSE_URL: 'http://127.0.0.1:1',
  });
  assert.notEqual(r.status, 0);
  assert.match(r.stdout, /clickhouse\s+UNHEALTHY\s+external/);
});

test('a taken port gives one error line naming the port and the variable to change', async () => {
  const blocker = createServer();
  await new Promise<void>((r) => blocker.listen(0, '127.0.0.1', r));
  const port = (blocker.address() as { port: number }).port;
  try {
    const r = cli(['services', 'up'], onlyClickHouseLocal(tempHome(false), port));
    assert.equal(r.status, 1);
    const lines = r.stderr.trim().split('\n');
    assert.equal(lines.length, 1, r.stderr);
    assert.match(lines[0]!, new RegExp(`clickhouse: port ${port} is already taken .*TOOLTRAIL_CLICKHOUSE_PORT`));
    assert.doesNotMatch(r.stderr, /\n\s+at /, 'no stack trace');
  } finally {
    blocker.close();
  }
});

/** A PATH holding only the named commands (plus sh and node), to simulate a machine that lacks the others. */
function restrictedPath(keep: string[], fakes: Record<string, string> = {}): string {
  const dir = mkdtempSync(join(tmpdir(), 'tooltrail-path-'));
  homes.push(dir);
  for (const cmd of ['sh', 'node', ...keep]) {
    const found = spawnSync('sh', ['-c', `command -v ${cmd}`], { encoding: 'utf8' }).stdout.trim();
    if (found) symlinkSync(found, join(dir, cmd));
  }
  for (const [name, script] of Object.entries(fakes)) writeFileSync(join(dir, name), script, { mode: 0o755 });
  return dir;
}

test('a taken PostgreSQL port gives one error line naming TOOLTRAIL_POSTGRES_PORT', async () => {
  const blocker = createServer();
  await new Promise<void>((r) => blocker.listen(0, '127.0.0.1', r));
  const port = (blocker.address() as { port: number }).port;
  try {
    const r = cli(['services', 'up'], {
      TOOLTRAIL_HOME: tempHome(false),
      TOOLTRAIL_KAFKA_BROKERS: services.kafka.brokers.join(','),
      TOOLTRAIL_CLICKHOUSE_URL: services.clickhouse.url,
      TOOLTRAIL_ALERTMANAGER_URL: services.alertmanager.url,
      TOOLTRAIL_POSTGRES_PORT: String(port),
    });
    assert.equal(r.status, 1);
    assert.match(
      r.stderr.trim(),
      new RegExp(`^tooltrail: postgres: port ${port} is already taken .*TOOLTRAIL_POSTGRES_PORT`),
    );
    assert.equal(r.stderr.trim().split('\n').length, 1, r.stderr);
  } finally {
    blocker.close();
  }
});

test('a machine without Java gets one line naming Java and how to install it', async () => {
  const [kafka, controller] = await freePorts(2);
  const env = {
    TOOLTRAIL_HOME: tempHome(true),
    TOOLTRAIL_KAFKA_PORT: String(kafka),
    TOOLTRAIL_KAFKA_CONTROLLER_PORT: String(controller),
    TOOLTRAIL_CLICKHOUSE_URL: services.clickhouse.url,
    TOOLTRAIL_ALERTMANAGER_URL: services.alertmanager.url,
    TOOLTRAIL_POSTGRES_URL: services.postgres.url,
    PATH: restrictedPath(['mvn']),
  };
  const r = cli(['services', 'up'], env);
  assert.equal(r.status, 1);
  assert.match(r.stderr.trim(), /^tooltrail: kafka: Java is not installed — install Java 17\+/);
  assert.equal(r.stderr.trim().split('\n').length, 1, r.stderr);
});

test('an impossible jar download gives one line naming Maven Central and where the output is', async () => {
  const [kafka, controller] = await freePorts(2);
  const env = {
    TOOLTRAIL_HOME: tempHome(false),
    TOOLTRAIL_KAFKA_PORT: String(kafka),
    TOOLTRAIL_KAFKA_CONTROLLER_PORT: String(controller),
    TOOLTRAIL_CLICKHOUSE_URL: services.clickhouse.url,
    TOOLTRAIL_ALERTMANAGER_URL: services.alertmanager.url,
    TOOLTRAIL_POSTGRES_URL: services.postgres.url,
    PATH: restrictedPath(['java'], {
      mvn: '#!/bin/sh\necho "Could not transfer artifact: network unreachable" >&2\nexit 1\n',
    }),
  };
  const r = cli(['services', 'up'], env);
  assert.equal(r.status, 1);
  assert.match(
    r.stderr.trim(),
    /^tooltrail: kafka: could not download the Kafka [\d.]+ jars from Maven Central \(mvn exited 1\)/,
  );
  assert.equal(r.stderr.trim().split('\n').length, 1, r.stderr);
});
