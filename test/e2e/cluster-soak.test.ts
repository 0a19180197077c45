// test-lane: self-contained (a private 3-broker Kafka, ClickHouse and stack on free ports; scripts/test-lanes.js)
/**
 * The short cluster soak (chaos/README.md, "Cluster shape"; `npm run chaos -- --kafka-brokers 3 ...` is the long
 * one): a private 3-broker Kafka (RF 3, min.insync.replicas 2), three ingest instances in one group, and the three
 * cluster faults under a steady load. Private ports, picked free at run time: the shared services are never touched.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { CLUSTER_FAULT_KINDS } from '../../chaos/cluster-faults.ts';
import { DEFAULT_SOAK, formatReport, runSoak } from '../../chaos/soak.ts';

const INGESTS = 3;

test('loses and duplicates nothing while a leader broker is killed -9, a partition is reassigned and ingest instances restart one at a time', {
  timeout: 10 * 60_000,
}, async (t) => {
  const report = await runSoak({
    ...DEFAULT_SOAK,
    // The faults back to back from ~4 s, the load on until 5 s after the last (the killed broker's rejoin under load).
    durationMs: 25_000,
    loadAfterLastFaultMs: 5_000,
    rate: 200,
    seed: 23,
    faults: [...CLUSTER_FAULT_KINDS],
    kafkaBrokers: 3,
    ingestInstances: INGESTS,
    lostAnswers: 0.01,
    log: (m) => t.diagnostic(m),
  });
  for (const line of formatReport(report)) t.diagnostic(line);

  const ran = (kind: string) => report.faults.filter((f) => f.kind === kind && !f.error);
  assert.deepEqual(
    report.faults.filter((f) => f.error).map((f) => `${f.kind}: ${f.error}`),
    [],
    'no fault failed',
  );
  // Each did what it is named after: leaders moved and the broker rejoined every ISR, the reassignment finished.
  assert.deepEqual(
    report.faults.filter((f) => !f.asPlanned).map((f) => `${f.kind}: ${f.detail}`),
    [],
    'every fault happened as planned',
  );
  assert.ok(ran('broker-kill9').length > 0, 'a broker leading partitions was killed -9 and came back');
  assert.ok(ran('partition-reassign').length > 0, 'a partition was reassigned off its leader and back, in sync');
  assert.ok(report.leadershipMoves > 0, 'a partition leader moved');
  const rolled = ran('ingest-rolling-kill9')[0]?.detail ?? '';
  for (let i = 1; i <= INGESTS; i++) assert.match(rolled, new RegExp(`ingest-${i}\\b`), `ingest-${i} restarted`);
  // Each restarted member joins the group again: at least one new generation per restart.
  assert.ok(report.rebalances >= INGESTS, `rebalances counted from the group's joins: ${report.rebalances}`);

  assert.equal(report.load.rejected, 0, 'no request refused for good');
  assert.equal(report.neverAcknowledgedRequests, 0, 'every request was acknowledged in the end (after retries)');
  assert.equal(report.counts.lost, 0, `lost: ${report.counts.lostSpanIds.join(',')}`);
  assert.equal(report.counts.duplicated, 0, `duplicated: ${report.counts.duplicatedSpanIds.join(',')}`);
  assert.equal(report.counts.unknown, 0, 'no row the load did not send');
  assert.equal(report.counts.stored, report.load.spansAcked, 'every acknowledged span was stored');
  assert.equal(report.unconsumed, 0, 'nothing left in Kafka past the group commits');
});
