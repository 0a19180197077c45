/**
 * A real Apache Kafka broker, single node in KRaft mode (broker + controller in one process), from the jars
 * Maven resolves from Maven Central at the version pinned in pom.xml, run with the machine's Java.
 * The jars are cached under <home>/cache/kafka-<version>/ so the second `up` downloads nothing.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createKafkaClient, describeCluster } from '../../platform/kafka/index.ts';
import { KAFKA_VERSION, type KafkaSaslSslListener, type ServicesConfig } from '../config.ts';
import { ServiceError } from '../errors.ts';
import { managedService } from '../managed-service.ts';
import { assertPortsFree, commandExists, processPaths, startDetached, waitHealthy } from '../process.ts';
import type { ManagedService } from '../service.ts';
import { kafkaClusterService, withClusterNodesStopped } from './cluster.ts';

const POM = join(dirname(fileURLToPath(import.meta.url)), 'pom.xml');
/** The JVM's start on a loaded 2-core machine passed 60 s (a CI run beside a full suite); a healthy one is seconds. */
const START_TIMEOUT_MS = 180_000;
const MIN_JAVA = 17;

export function kafkaJarsDir(home: string): string {
  return join(home, 'cache', `kafka-${KAFKA_VERSION}`);
}

function javaMajorVersion(): number | undefined {
  const r = spawnSync('java', ['-version'], { encoding: 'utf8' });
  if (r.status !== 0) return undefined;
  const m = /version "(\d+)(?:\.(\d+))?/.exec(r.stderr);
  if (!m) return undefined;
  const major = Number(m[1]);
  return major === 1 ? Number(m[2]) : major;
}

export function assertJava(): void {
  const v = commandExists('java') ? javaMajorVersion() : undefined;
  if (v === undefined) {
    throw new ServiceError(
      'kafka',
      'Java is not installed',
      `install Java ${MIN_JAVA}+ (apt-get install openjdk-17-jre-headless), or set TOOLTRAIL_KAFKA_BROKERS to your Kafka cluster`,
    );
  }
  if (v < MIN_JAVA)
    throw new ServiceError('kafka', `Java ${v} is too old`, `install Java ${MIN_JAVA}+ and put it first on PATH`);
}

/** Resolves the broker jars once; later calls find the cache and download nothing. */
export function ensureKafkaJars(home: string, logFile: string): string {
  const dir = kafkaJarsDir(home);
  const marker = join(dir, '.complete');
  if (existsSync(marker)) return dir;
  if (!commandExists('mvn')) {
    throw new ServiceError(
      'kafka',
      'Maven (mvn) is not installed; it resolves the Kafka jars',
      'apt-get install maven, or set TOOLTRAIL_KAFKA_BROKERS to your Kafka cluster',
    );
  }
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const r = spawnSync(
    'mvn',
    ['-q', '-B', '-f', POM, 'dependency:copy-dependencies', `-DoutputDirectory=${dir}`, '-DincludeScope=runtime'],
    { encoding: 'utf8' },
  );
  if (r.status !== 0) {
    mkdirSync(dirname(logFile), { recursive: true });
    writeFileSync(logFile, `${r.stdout}\n${r.stderr}`, { flag: 'a' });
    throw new ServiceError(
      'kafka',
      `could not download the Kafka ${KAFKA_VERSION} jars from Maven Central (mvn exited ${r.status})`,
      `check network access to Maven Central (or ~/.m2/settings.xml mirrors); mvn output is in ${logFile}`,
    );
  }
  if (!readdirSync(dir).some((f) => f.startsWith(`kafka_2.13-${KAFKA_VERSION}`))) {
    throw new ServiceError('kafka', 'Maven finished but the broker jar is missing', `remove ${dir} and retry`);
  }
  writeFileSync(marker, `${new Date().toISOString()}\n`);
  return dir;
}

const JAAS_SAFE = /^[^"\\\s;]+$/;

/** The SASL_SSL listener's broker settings; its keystore file (key then certificate chain) is written beside. */
function saslSslProperties(listener: KafkaSaslSslListener, keystoreFile: string): string {
  for (const [name, password] of Object.entries(listener.plainUsers)) {
    if (!JAAS_SAFE.test(name) || !JAAS_SAFE.test(password)) {
      throw new ServiceError(
        'kafka',
        `PLAIN user ${JSON.stringify(name)} has a name or password the JAAS file cannot hold`,
        'use no quotes, backslashes, spaces or semicolons',
      );
    }
  }
  const plainUsers = Object.entries(listener.plainUsers)
    .map(([name, password]) => ` user_${name}="${password}"`)
    .join('');
  const l = 'listener.name.sasl_ssl';
  return `sasl.enabled.mechanisms=PLAIN,SCRAM-SHA-256,SCRAM-SHA-512
${l}.sasl.enabled.mechanisms=PLAIN,SCRAM-SHA-256,SCRAM-SHA-512
${l}.plain.sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required${plainUsers};
${l}.scram-sha-256.sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required;
${l}.scram-sha-512.sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required;
${l}.ssl.keystore.type=PEM
${l}.ssl.keystore.location=${keystoreFile}
${
  listener.clientCaFile
    ? `${l}.ssl.client.auth=required
${l}.ssl.truststore.type=PEM
${l}.ssl.truststore.location=${listener.clientCaFile}
`
    : `${l}.ssl.client.auth=none
`
}`;
}

function serverProperties(config: ServicesConfig, dataDir: string, keystoreFile: string): string {
  const { port, controllerPort, saslSsl } = config.kafka;
  const secure = saslSsl ? `,SASL_SSL://127.0.0.1:${saslSsl.port}` : '';
  return `# Generated by \`tooltrail services up\`; edits are overwritten.
process.roles=broker,controller
node.id=1
controller.quorum.bootstrap.servers=127.0.0.1:${controllerPort}
listeners=PLAINTEXT://127.0.0.1:${port},CONTROLLER://127.0.0.1:${controllerPort}${secure}
advertised.listeners=PLAINTEXT://127.0.0.1:${port}${secure}
controller.listener.names=CONTROLLER
inter.broker.listener.name=PLAINTEXT
listener.security.protocol.map=CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT${saslSsl ? ',SASL_SSL:SASL_SSL' : ''}
${saslSsl ? saslSslProperties(saslSsl, keystoreFile) : ''}log.dirs=${dataDir}
num.partitions=3
offsets.topic.replication.factor=1
offsets.topic.num.partitions=5
transaction.state.log.replication.factor=1
transaction.state.log.min.isr=1
share.coordinator.state.topic.replication.factor=1
share.coordinator.state.topic.min.isr=1
group.initial.rebalance.delay.ms=0
auto.create.topics.enable=true
`;
}

export function log4jProperties(logFile: string): string {
  return `status = warn
appender.file.type = File
appender.file.name = file
appender.file.fileName = ${logFile}
appender.file.layout.type = PatternLayout
appender.file.layout.pattern = [%d] %p %m (%c)%n
rootLogger.level = info
rootLogger.appenderRef.file.ref = file
logger.kafka.name = kafka
logger.kafka.level = info
logger.apache.name = org.apache.kafka
logger.apache.level = warn
`;
}

/** Creates (or updates) SCRAM credentials through the broker's admin API, as `kafka-configs.sh` does. */
function createScramUsers(classpath: string, bootstrap: string, users: KafkaSaslSslListener['scramUsers']): void {
  for (const u of users) {
    const r = spawnSync(
      'java',
      [
        '-cp',
        classpath,
        'kafka.admin.ConfigCommand',
        '--bootstrap-server',
        bootstrap,
        '--alter',
        '--entity-type',
        'users',
        '--entity-name',
        u.name,
        '--add-config',
        `${u.mechanism}=[iterations=4096,password=${u.password}]`,
      ],
      { encoding: 'utf8' },
    );
    if (r.status !== 0) {
      throw new ServiceError(
        'kafka',
        `creating the ${u.mechanism} user ${u.name} failed: ${(r.stderr || r.stdout).trim().split('\n').pop()}`,
        'see the broker log',
      );
    }
  }
}

/** The local Kafka: one node by default, a replicated cluster with TOOLTRAIL_KAFKA_BROKER_COUNT > 1 (cluster.ts). */
export function kafkaService(config: ServicesConfig): ManagedService {
  return config.kafka.brokerCount > 1
    ? kafkaClusterService(config)
    : withClusterNodesStopped(config, singleNode(config));
}

function singleNode(config: ServicesConfig): ManagedService {
  const k = config.kafka;
  const paths = processPaths(config.home, 'kafka');
  const root = join(config.home, 'kafka');
  const dataDir = join(root, 'data');
  const endpoint = k.brokers.join(',');
  const healthy = async () => {
    try {
      const kafka = createKafkaClient({
        brokers: k.brokers,
        clientId: 'tooltrail-health',
        retries: 0,
        quiet: true,
        connectionTimeoutMs: 1_000,
        requestTimeoutMs: 3_000,
      });
      return (await describeCluster(kafka)).brokers > 0;
    } catch {
      return false;
    }
  };

  return managedService({
    name: 'kafka',
    mode: k.mode,
    endpoint: endpoint,
    paths,
    healthy,
    stopGraceMs: 20_000,
    async start() {
      assertJava();
      const jars = ensureKafkaJars(config.home, paths.logFile);
      await assertPortsFree('kafka', [
        { port: k.port, envVar: 'TOOLTRAIL_KAFKA_PORT' },
        { port: k.controllerPort, envVar: 'TOOLTRAIL_KAFKA_CONTROLLER_PORT' },
        ...(k.saslSsl ? [{ port: k.saslSsl.port, envVar: 'TOOLTRAIL_KAFKA_SASL_SSL_PORT' }] : []),
      ]);
      mkdirSync(root, { recursive: true });
      const keystore = join(root, 'sasl-ssl-keystore.pem');
      if (k.saslSsl) {
        writeFileSync(
          keystore,
          `${readFileSync(k.saslSsl.keyFile, 'utf8')}\n${readFileSync(k.saslSsl.certFile, 'utf8')}`,
          {
            mode: 0o600,
          },
        );
      }
      const props = join(root, 'server.properties');
      writeFileSync(props, serverProperties(config, dataDir, keystore), { mode: 0o600 });
      const log4j = join(root, 'log4j2.properties');
      writeFileSync(log4j, log4jProperties(join(config.home, 'logs', 'kafka-server.log')));
      const classpath = `${jars}/*`;
      const formattedFor = join(root, 'formatted-controller-port');
      if (!existsSync(join(dataDir, 'meta.properties'))) {
        const id = spawnSync('java', ['-cp', classpath, 'kafka.tools.StorageTool', 'random-uuid'], {
          encoding: 'utf8',
        });
        const fmt = spawnSync(
          'java',
          ['-cp', classpath, 'kafka.tools.StorageTool', 'format', '--standalone', '-t', id.stdout.trim(), '-c', props],
          { encoding: 'utf8' },
        );
        if (id.status !== 0 || fmt.status !== 0) {
          throw new ServiceError(
            'kafka',
            `formatting the KRaft storage failed: ${(fmt.stderr || id.stderr).trim().split('\n').pop()}`,
            `remove ${dataDir} and retry`,
          );
        }
        writeFileSync(formattedFor, String(k.controllerPort));
      } else if (existsSync(formattedFor) && readFileSync(formattedFor, 'utf8').trim() !== String(k.controllerPort)) {
        throw new ServiceError(
          'kafka',
          `its data was formatted for controller port ${readFileSync(formattedFor, 'utf8').trim()}, not ${k.controllerPort}`,
          'use the original TOOLTRAIL_KAFKA_CONTROLLER_PORT, or `tooltrail services down --purge` to start afresh',
        );
      }
      const started = startDetached(paths, 'java', [
        '-Xms256m',
        '-Xmx1g',
        '-XX:+UseG1GC',
        `-Dlog4j2.configurationFile=${log4j}`,
        '-cp',
        classpath,
        'kafka.Kafka',
        props,
      ]);
      await waitHealthy('kafka', started, healthy, START_TIMEOUT_MS, join(config.home, 'logs', 'kafka-server.log'));
      if (k.saslSsl) createScramUsers(classpath, k.brokers[0] ?? `127.0.0.1:${k.port}`, k.saslSsl.scramUsers);
      return started;
    },
  });
}
