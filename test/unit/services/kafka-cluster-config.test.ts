/** The local Kafka cluster's shape: ports, bootstrap list, replication settings (services/kafka/cluster.ts). */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { defaultReplicationFactor } from '../../../platform/kafka/admin.ts';
import { loadServicesConfig } from '../../../services/config.ts';
import { clusterNodeProperties, kafkaNodes, replicationOf } from '../../../services/kafka/cluster.ts';

test('single-broker stays the default', () => {
  const c = loadServicesConfig({});
  assert.equal(c.kafka.brokerCount, 1);
  assert.deepEqual(c.kafka.brokers, ['127.0.0.1:9092']);
});

test("the extra brokers' ports derive from TOOLTRAIL_KAFKA_PORT, so parallel runs on other ports do not collide", () => {
  const c = loadServicesConfig({
    TOOLTRAIL_KAFKA_PORT: '27092',
    TOOLTRAIL_KAFKA_CONTROLLER_PORT: '27093',
    TOOLTRAIL_KAFKA_BROKER_COUNT: '3',
  });
  assert.deepEqual(kafkaNodes(c), [
    { id: 1, port: 27092, controllerPort: 27093 },
    { id: 2, port: 27102, controllerPort: 27103 },
    { id: 3, port: 27104, controllerPort: 27105 },
  ]);
});

test('TOOLTRAIL_KAFKA_CLUSTER_PORT_BASE moves the extra brokers', () => {
  const c = loadServicesConfig({ TOOLTRAIL_KAFKA_BROKER_COUNT: '2', TOOLTRAIL_KAFKA_CLUSTER_PORT_BASE: '30000' });
  assert.deepEqual(
    kafkaNodes(c).map((n) => [n.port, n.controllerPort]),
    [
      [9092, 9093],
      [30000, 30001],
    ],
  );
});

test('components bootstrap from every broker of a local cluster, so losing one does not cut them off', () => {
  const c = loadServicesConfig({ TOOLTRAIL_KAFKA_BROKER_COUNT: '3' });
  assert.deepEqual(c.kafka.brokers, ['127.0.0.1:9092', '127.0.0.1:9102', '127.0.0.1:9104']);
});

test('a bad broker count is reported with its exact key', () => {
  assert.throws(() => loadServicesConfig({ TOOLTRAIL_KAFKA_BROKER_COUNT: '0' }), /TOOLTRAIL_KAFKA_BROKER_COUNT/);
  assert.throws(() => loadServicesConfig({ TOOLTRAIL_KAFKA_BROKER_COUNT: 'three' }), /TOOLTRAIL_KAFKA_BROKER_COUNT/);
});

test('a cluster of 3 replicates every topic 3 times and acknowledges with 2 in sync; one controller quorum over all', () => {
  const nodes = kafkaNodes(loadServicesConfig({ TOOLTRAIL_KAFKA_BROKER_COUNT: '3' }));
  const props = clusterNodeProperties(nodes[1] as (typeof nodes)[number], nodes, '/data');
  assert.match(props, /^node\.id=2$/m);
  assert.match(props, /^controller\.quorum\.voters=1@127\.0\.0\.1:9093,2@127\.0\.0\.1:9103,3@127\.0\.0\.1:9105$/m);
  assert.match(props, /^default\.replication\.factor=3$/m);
  assert.match(props, /^min\.insync\.replicas=2$/m);
  assert.match(props, /^offsets\.topic\.replication\.factor=3$/m);
  assert.match(props, /^unclean\.leader\.election\.enable=false$/m);
  assert.deepEqual(replicationOf(2), { replicationFactor: 2, minInsyncReplicas: 1 });
});

test('topics created without a replication factor get min(3, brokers)', () => {
  assert.deepEqual([1, 2, 3, 5].map(defaultReplicationFactor), [1, 2, 3, 3]);
});
