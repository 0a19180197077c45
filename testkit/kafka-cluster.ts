/**
 * A private replicated Kafka (services/kafka/cluster.ts) for one test: a temporary home, free ports picked at run
 * time (never the shared services' ports), the checkout's cached jars linked in; `close()` stops every node and
 * removes the folder.
 */
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, unlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PACKAGE_ROOT } from '../platform/package-root.ts';
import { loadServicesConfig } from '../services/config.ts';
import { type KafkaNodeService, kafkaClusterService, kafkaNodeServices } from '../services/kafka/cluster.ts';
import { freePort, freePortRun } from '../services/process.ts';

export interface PrivateKafkaCluster {
  home: string;
  brokers: string[];
  nodes: KafkaNodeService[];
  close(): Promise<void>;
}

export async function startPrivateKafkaCluster(brokerCount = 3): Promise<PrivateKafkaCluster> {
  const home = mkdtempSync(join(tmpdir(), 'tooltrail-kafka-cluster-'));
  const cache = join(loadServicesConfig({}, PACKAGE_ROOT).home, 'cache');
  mkdirSync(cache, { recursive: true });
  symlinkSync(cache, join(home, 'cache'));
  const [port, controllerPort, base] = await Promise.all([freePort(), freePort(), freePortRun(2 * (brokerCount - 1))]);
  const svc = loadServicesConfig({
    TOOLTRAIL_HOME: home,
    TOOLTRAIL_KAFKA_PORT: String(port),
    TOOLTRAIL_KAFKA_CONTROLLER_PORT: String(controllerPort),
    TOOLTRAIL_KAFKA_BROKER_COUNT: String(brokerCount),
    TOOLTRAIL_KAFKA_CLUSTER_PORT_BASE: String(base),
  });
  const whole = kafkaClusterService(svc);
  const nodes = kafkaNodeServices(svc);
  const close = async () => {
    await Promise.allSettled([whole.down(), ...nodes.map((n) => n.kill9())]);
    try {
      unlinkSync(join(home, 'cache')); // the link, never the shared jars
    } catch {}
    rmSync(home, { recursive: true, force: true });
  };
  try {
    await whole.up();
  } catch (err) {
    await close();
    throw err;
  }
  return { home, brokers: svc.kafka.brokers, nodes, close };
}
