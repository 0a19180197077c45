/**
 * The pipeline with its components as child processes, for the soak (`tooltrail up` and the demo run them in one
 * process: cli/stack/stack.ts, on the same cli/stack/services.ts). Private: its own Kafka and ClickHouse (temporary
 * home, free ports picked at run time; the shared services on the default ports are never touched), and the
 * collector and ingest as child processes the fault schedule can kill -9, stop and restart. `close()` removes every
 * process and folder it created, and a synchronous `killAllSync()` does the same for processes when the parent exits
 * abruptly.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import {
  appendFileSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  rmSync,
  symlinkSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { migrateSchema, startServices } from '../cli/stack/services.ts';
import { type ClickHouseClient, createClickHouse } from '../platform/clickhouse.ts';
import { KAFKA_CLIENT_ENV, type KafkaClientKind } from '../platform/kafka/index.ts';
import { PACKAGE_ROOT } from '../platform/package-root.ts';
import { DEFAULT_RETENTION_DAYS } from '../schema/config.ts';
import { clickhouseService } from '../services/clickhouse/clickhouse.ts';
import { loadServicesConfig } from '../services/config.ts';
import { type KafkaNodeService, kafkaNodeServices } from '../services/kafka/cluster.ts';
import { kafkaService } from '../services/kafka/kafka.ts';
import { freePort, freePortRun, isAlive, portOpen, runningPid } from '../services/process.ts';
import type { ManagedService } from '../services/service.ts';

const ROOT = PACKAGE_ROOT;
const CLI = join(ROOT, 'bin', 'tooltrail.js');
export const CHAOS_TOKEN = 'chaos-soak-token';
export const CHAOS_TENANT = 'chaos';

/** The load's credentials: `chaos` first, then `chaos-2`, `chaos-3`, ... (a multi-tenant deployment's customers). */
export function loadCredentials(tenants: number): { token: string; tenant: string }[] {
  return Array.from({ length: tenants }, (_, i) =>
    i === 0
      ? { token: CHAOS_TOKEN, tenant: CHAOS_TENANT }
      : { token: `${CHAOS_TOKEN}-${i + 1}`, tenant: `${CHAOS_TENANT}-${i + 1}` },
  );
}
/** A second credential, for the hostile-clients fault (chaos/hostile-clients.ts): the load's tenant must stay served. */
export const HOSTILE_TOKEN = 'chaos-hostile-token-0001';
export const HOSTILE_TENANT = 'chaos-hostile';
/** A third, quiet credential: the tenant the hostile-clients fault checks is still served (the load fills its own share). */
export const BYSTANDER_TOKEN = 'chaos-bystander-token-01';
export const BYSTANDER_TENANT = 'chaos-bystander';
/** The soak's collector cuts slow clients sooner than the defaults (10 s, 30 s), so the hostile fault fits its slot. */
export const CHAOS_COLLECTOR_TIMEOUTS = { headersTimeoutMs: 2_000, requestTimeoutMs: 4_000 };
const TOPIC = 'chaos_spans';
const DLQ_TOPIC = `${TOPIC}_dlq`;
const DATABASE = 'chaos';
const GROUP_ID = 'chaos-ingest';
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export interface UnplannedExit {
  name: string;
  /** Seconds since the component was created. */
  atS: number;
  how: string;
  lastLines: string[];
}

/**
 * A pipeline component run as `node bin/tooltrail.js <command>` in its own process group (the collector re-executes
 * itself with V8 flags: killing the group kills both). An exit nobody asked for is restarted, as a supervisor would.
 */
const RUN_LINES_KEPT = 1_000;

export class Component {
  private child: ChildProcess | undefined;
  private planned = false;
  private stopped = false;
  /** Exits nobody planned (crash on a Kafka/ClickHouse outage at start-up, ...), each followed by a restart. */
  readonly unplannedExits: UnplannedExit[] = [];
  private readonly bornAt = Date.now();
  readonly log: string[] = [];
  /** The current run's lines (the newest RUN_LINES_KEPT), for waitForLine. */
  private runLines: string[] = [];

  constructor(
    readonly name: string,
    private readonly args: string[],
    private readonly env: NodeJS.ProcessEnv,
    /** Ready once this answers true; gets the output lines of the current run (not the previous ones). */
    private readonly ready: (linesSinceStart: string[]) => Promise<boolean>,
    /** Sees every output line (the log keeps only the last 200), e.g. to count the ingest's group joins. */
    private readonly onLine?: (line: string) => void,
    /** A file that gets every output line, time-stamped (the soak's `--log-dir`). */
    private readonly logFile?: string,
  ) {}

  get pid(): number | undefined {
    return this.child?.pid;
  }

  /** Resolves true once ready, false when this run exited while starting (the supervisor restarts it). */
  async start(timeoutMs = 60_000): Promise<boolean> {
    this.planned = false;
    const lines: string[] = [];
    const runLines: string[] = [];
    this.runLines = runLines;
    const child = spawn(process.execPath, [CLI, ...this.args], {
      env: this.env,
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    this.child = child;
    const keep = (d: Buffer) => {
      for (const line of d.toString().split('\n')) {
        if (!line.trim()) continue;
        this.log.push(line);
        this.onLine?.(line);
        if (this.logFile) appendFileSync(this.logFile, `${new Date().toISOString()} ${line}\n`);
        if (lines.length < 50) lines.push(line);
        runLines.push(line);
        if (runLines.length > RUN_LINES_KEPT) runLines.shift();
      }
      if (this.log.length > 200) this.log.splice(0, this.log.length - 200);
    };
    child.stdout?.on('data', keep);
    child.stderr?.on('data', keep);
    child.once('exit', (code, signal) => {
      if (this.child !== child || this.planned || this.stopped) return;
      this.unplannedExits.push({
        name: this.name,
        atS: (Date.now() - this.bornAt) / 1000,
        how: String(signal ?? `exit ${code}`),
        lastLines: this.log.slice(-3),
      });
      this.log.push(`[chaos] ${this.name} exited on its own (${signal ?? code}); restarting in 2 s`);
      setTimeout(() => {
        if (!this.stopped && this.child === child) this.start().catch(() => {});
      }, 2_000);
    });
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      if (child.exitCode !== null || child.signalCode !== null) return false; // the supervisor restarts it
      if (await this.ready(lines)) return true;
      await sleep(200);
    }
    throw new Error(`${this.name} not ready after ${timeoutMs / 1000} s: ${this.log.slice(-5).join(' | ')}`);
  }

  /** True once a line of the current run matches, false after timeoutMs or when this run exits first. */
  async waitForLine(match: (line: string) => boolean, timeoutMs: number): Promise<boolean> {
    const child = this.child;
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      if (this.runLines.some(match)) return true;
      if (!child || child.exitCode !== null || child.signalCode !== null) return false;
      await sleep(100);
    }
    return false;
  }

  private signal(sig: NodeJS.Signals): void {
    const pid = this.child?.pid;
    if (pid === undefined) return;
    try {
      process.kill(-pid, sig);
    } catch {}
  }

  private async exited(timeoutMs: number): Promise<boolean> {
    const child = this.child;
    const deadline = Date.now() + timeoutMs;
    while (child && child.exitCode === null && child.signalCode === null && Date.now() < deadline) await sleep(50);
    return !child || child.exitCode !== null || child.signalCode !== null;
  }

  /** kill -9 of the whole group: no shutdown hook runs. */
  async kill9(): Promise<void> {
    this.planned = true;
    this.signal('SIGKILL');
    await this.exited(10_000);
  }

  /** SIGTERM (drain), SIGKILL after the grace period. */
  async terminate(graceMs = 30_000): Promise<void> {
    this.planned = true;
    this.signal('SIGTERM');
    if (!(await this.exited(graceMs))) {
      this.signal('SIGKILL');
      await this.exited(10_000);
    }
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await this.terminate(15_000);
  }

  killSync(): void {
    this.stopped = true;
    this.signal('SIGKILL');
  }
}

export interface StackOptions {
  /** Kafka brokers of the private cluster (1 = a single node); topics get RF min(3, n). */
  kafkaBrokers?: number;
  /** Ingest processes in one consumer group. */
  ingestInstances?: number;
  /** Credentials (tenants) the load is spread over (loadCredentials). */
  loadTenants?: number;
  /** The Kafka client of the collector and the ingests (TOOLTRAIL_KAFKA_CLIENT); absent: the default. */
  kafkaClient?: KafkaClientKind;
  /**
   * A folder that keeps every component's whole log (`<name>.log`, each line time-stamped) and, at close, the
   * private services' own logs; absent: only the last lines are kept, in memory.
   */
  logDir?: string;
}

export interface Stack {
  home: string;
  collectorUrl: string;
  /** The collector's /metrics (no token: the soak's collector serves it open on loopback). */
  collectorMetricsUrl: string;
  /** The load's bearer tokens, one per tenant. */
  loadTokens: string[];
  database: string;
  topic: string;
  /** Where the ingest dead-letters what it cannot store. */
  dlqTopic: string;
  groupId: string;
  /** The whole Kafka (one node, or every node of the cluster at once). */
  kafka: ManagedService;
  /** Each node of a private cluster, to kill -9 one of them (empty for a single node). */
  kafkaNodes: KafkaNodeService[];
  kafkaBrokers: string[];
  clickhouse: ManagedService;
  collector: Component;
  /** The first ingest instance (the only one unless `ingestInstances` > 1). */
  ingest: Component;
  ingests: Component[];
  /** Group joins answered as the group's leader, over every ingest instance: one per group generation. */
  readonly leaderJoins: number;
  /** A client on the private ClickHouse (for the accounting). */
  ch: ClickHouseClient;
  close(): Promise<void>;
  killAllSync(): void;
}

/** Child env: nothing inherited from the caller's TOOLTRAIL_* settings can point a child at the shared services. */
function childEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!k.startsWith('TOOLTRAIL_')) env[k] = v;
  return { ...env, ...extra };
}

/** Where cached Kafka jars live already (the checkout's .tooltrail/cache), so the private broker downloads nothing. */
function sharedCache(): string {
  return join(loadServicesConfig({}, ROOT).home, 'cache');
}

/**
 * Starts every node of a private cluster; a node whose start-up exited is started again (up to 3 times), as a
 * supervisor would: on an overloaded machine one of three JVMs starting together sometimes dies. Nodes already
 * healthy are left alone by up().
 */
async function clusterUp(kafka: ManagedService, log: (m: string) => void): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      await kafka.up();
      return;
    } catch (err) {
      if (attempt >= 3) throw err;
      log(`kafka        start ${attempt} failed (${(err as Error).message}); starting the cluster's nodes again`);
      await sleep(2_000);
    }
  }
}

/** Copies the private services' logs (Kafka, ClickHouse) before their folder is removed. */
function keepServiceLogs(from: string, to: string): void {
  if (!existsSync(from)) return;
  for (const f of readdirSync(from)) {
    try {
      copyFileSync(join(from, f), join(to, `service-${f}`));
    } catch {}
  }
}

export async function startStack(log: (m: string) => void, o: StackOptions = {}): Promise<Stack> {
  const brokerCount = o.kafkaBrokers ?? 1;
  const ingestCount = o.ingestInstances ?? 1;
  const credentials = loadCredentials(o.loadTenants ?? 1);
  const home = mkdtempSync(join(tmpdir(), 'tooltrail-chaos-'));
  const cache = sharedCache();
  mkdirSync(cache, { recursive: true });
  symlinkSync(cache, join(home, 'cache'));
  const [kafkaPort, controllerPort, clickhousePort, collectorPort] = await Promise.all([
    freePort(),
    freePort(),
    freePort(),
    freePort(),
  ]);
  const svcEnv = {
    TOOLTRAIL_HOME: home,
    TOOLTRAIL_KAFKA_PORT: String(kafkaPort),
    TOOLTRAIL_KAFKA_CONTROLLER_PORT: String(controllerPort),
    TOOLTRAIL_CLICKHOUSE_PORT: String(clickhousePort),
    TOOLTRAIL_KAFKA_BROKER_COUNT: String(brokerCount),
    ...(brokerCount > 1 ? { TOOLTRAIL_KAFKA_CLUSTER_PORT_BASE: String(await freePortRun(2 * (brokerCount - 1))) } : {}),
  };
  const svc = loadServicesConfig(svcEnv);
  const kafka = kafkaService(svc);
  const kafkaNodes = brokerCount > 1 ? kafkaNodeServices(svc) : [];
  const clickhouse = clickhouseService(svc);
  const ch = createClickHouse({ url: svc.clickhouse.url, requestTimeoutMs: 60_000 });
  const env = childEnv({
    ...svcEnv,
    TOOLTRAIL_KAFKA_BROKERS: svc.kafka.brokers.join(','),
    ...(o.kafkaClient ? { [KAFKA_CLIENT_ENV]: o.kafkaClient } : {}),
    TOOLTRAIL_CLICKHOUSE_URL: svc.clickhouse.url,
    TOOLTRAIL_COLLECTOR_TOKENS: [
      ...credentials.map((c) => `${c.token}=${c.tenant}`),
      `${HOSTILE_TOKEN}=${HOSTILE_TENANT}`,
      `${BYSTANDER_TOKEN}=${BYSTANDER_TENANT}`,
    ].join(','),
    TOOLTRAIL_COLLECTOR_PORT: String(collectorPort),
    TOOLTRAIL_COLLECTOR_TOPIC: TOPIC,
    TOOLTRAIL_INGEST_TOPIC: TOPIC,
    TOOLTRAIL_INGEST_GROUP_ID: GROUP_ID,
    TOOLTRAIL_INGEST_DLQ_TOPIC: DLQ_TOPIC,
    TOOLTRAIL_CLICKHOUSE_DATABASE: DATABASE,
    // A killed member's partitions move after 6 s (the broker minimum) instead of 30.
    TOOLTRAIL_INGEST_SESSION_TIMEOUT_MS: '6000',
  });
  const collectorFile = join(home, 'collector.json');
  writeFileSync(collectorFile, JSON.stringify({ collector: { http: CHAOS_COLLECTOR_TIMEOUTS } }));
  if (o.logDir) mkdirSync(o.logDir, { recursive: true });
  const logFileOf = (name: string) => (o.logDir ? join(o.logDir, `${name}.log`) : undefined);
  const collector = new Component(
    'collector',
    ['collector', '--config', collectorFile],
    env,
    () => portOpen(collectorPort),
    undefined,
    logFileOf('collector'),
  );
  let leaderJoins = 0;
  const ingests = Array.from({ length: ingestCount }, (_, i) => {
    const name = ingestCount > 1 ? `ingest-${i + 1}` : 'ingest';
    const c: Component = new Component(
      name,
      ['ingest'],
      env,
      async (): Promise<boolean> =>
        c.log.some((l) => l.startsWith('tooltrail ingest: ') && l.includes('-> ClickHouse')),
      (line) => {
        if (line.includes('group join (leader)')) leaderJoins++;
      },
      logFileOf(name),
    );
    return c;
  });
  const ingest = ingests[0] as Component;
  const stack: Stack = {
    home,
    collectorUrl: `http://127.0.0.1:${collectorPort}/v1/traces`,
    collectorMetricsUrl: `http://127.0.0.1:${collectorPort}/metrics`,
    loadTokens: credentials.map((c) => c.token),
    database: DATABASE,
    topic: TOPIC,
    dlqTopic: DLQ_TOPIC,
    groupId: GROUP_ID,
    kafka,
    kafkaNodes,
    kafkaBrokers: svc.kafka.brokers,
    clickhouse,
    collector,
    ingest,
    ingests,
    get leaderJoins() {
      return leaderJoins;
    },
    ch,
    killAllSync() {
      collector.killSync();
      for (const c of ingests) c.killSync();
      const names = ['clickhouse', ...(kafkaNodes.length ? kafkaNodes.map((n) => `kafka-${n.node.id}`) : ['kafka'])];
      for (const name of names) {
        const pid = runningPid({ pidFile: join(home, 'run', `${name}.pid`), logFile: '' });
        if (pid !== undefined && isAlive(pid)) {
          try {
            process.kill(-pid, 'SIGKILL');
          } catch {}
        }
      }
    },
    async close() {
      await Promise.allSettled([collector.stop(), ...ingests.map((c) => c.stop())]);
      await ch.close().catch(() => {});
      await Promise.allSettled([kafka.down(), clickhouse.down()]);
      stack.killAllSync();
      if (o.logDir) keepServiceLogs(join(home, 'logs'), o.logDir);
      try {
        unlinkSync(join(home, 'cache')); // the link, never the shared jars
      } catch {}
      rmSync(home, { recursive: true, force: true });
    },
  };
  try {
    log(`private services in ${home}: Kafka ${svc.kafka.brokers.join(',')}, ClickHouse :${clickhousePort}`);
    if (brokerCount > 1) {
      // One after the other: three JVMs starting beside the engine starve it past its start timeout on 2 cores.
      await startServices(svc, { kafka: false, log });
      await clusterUp(kafka, log);
      log(`kafka        started ${brokerCount} brokers at ${kafka.endpoint}`);
    } else await startServices(svc, { kafka: true, log });
    await migrateSchema(ch, { database: DATABASE, retentionDays: DEFAULT_RETENTION_DAYS }, { log });
    await collector.start();
    await Promise.all(ingests.map((c) => c.start()));
    log(`collector ${stack.collectorUrl}, ${ingestCount} ingest(s) ${TOPIC} -> ${DATABASE}`);
    return stack;
  } catch (err) {
    await stack.close();
    throw err;
  }
}
