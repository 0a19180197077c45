// test-lane: self-contained (a private Kafka, ClickHouse and stack on free ports; scripts/test-lanes.js)
/**
 * The short chaos soak (chaos/README.md; `npm run chaos` is the long one): every fault kind at least once against
 * private Kafka and ClickHouse instances (temporary home, free ports: the shared services are never touched).
 */
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { test } from 'node:test';
import { FAULT_KINDS } from '../../chaos/faults.ts';
import { DEFAULT_SOAK, formatReport, runSoak, type SoakReport } from '../../chaos/soak.ts';

/** Pids of processes whose command line or environment names `home` (our private services and children). */
function processesUsing(home: string): number[] {
  const found: number[] = [];
  for (const pid of readdirSync('/proc')) {
    if (!/^\d+$/.test(pid) || Number(pid) === process.pid) continue;
    for (const file of ['cmdline', 'environ']) {
      try {
        if (readFileSync(`/proc/${pid}/${file}`, 'latin1').includes(home)) found.push(Number(pid));
      } catch {}
    }
  }
  return [...new Set(found)];
}

test("no acknowledged span is lost and none is stored twice while the ingest is killed -9, Kafka restarts, ClickHouse is down, the collector restarts, is saturated and is abused by a second credential (the security probe's cases, each answered as owed, the load served), and clients re-send requests whose answer they lost", {
  timeout: 8 * 60_000,
}, async (t) => {
  let home = '';
  let report: SoakReport;
  try {
    report = await runSoak({
      ...DEFAULT_SOAK,
      // The faults back to back from ~3 s (about 50 s of them), the load on until 5 s after the last.
      durationMs: 40_000,
      loadAfterLastFaultMs: 5_000,
      rate: 300,
      seed: 11,
      faults: [...FAULT_KINDS],
      clickhouseOutageMs: 15_000,
      burstMs: 3_000,
      log: (m) => t.diagnostic(m),
      onStack: (s) => {
        home = s.home;
      },
    });
  } finally {
    assert.ok(home, 'the private stack started');
    assert.equal(existsSync(home), false, 'the private folder is removed');
    assert.deepEqual(processesUsing(home), [], 'no private process outlives the soak');
  }
  for (const line of formatReport(report)) t.diagnostic(line);

  const failed = report.faults.filter((f) => f.error).map((f) => `${f.kind}: ${f.error}`);
  assert.deepEqual(failed, [], 'every fault ran to its end (hostile-clients: each probe case answered as owed)');
  assert.deepEqual(
    [...new Set(report.faults.filter((f) => !f.error).map((f) => f.kind))].sort(),
    [...FAULT_KINDS].sort(),
    'every fault kind ran',
  );
  assert.ok(report.load.refused429 > 0, 'the saturation made the collector refuse with 429');
  assert.equal(report.load.rejected, 0, 'no request refused for good');
  assert.equal(report.neverAcknowledgedRequests, 0, 'every request was acknowledged in the end (after retries)');
  assert.equal(report.counts.lost, 0, `lost: ${report.counts.lostSpanIds.join(',')}`);
  assert.equal(report.counts.duplicated, 0, `duplicated: ${report.counts.duplicatedSpanIds.join(',')}`);
  assert.equal(report.counts.unknown, 0, 'no row the load did not send');
  assert.equal(report.counts.stored, report.load.spansAcked, 'every acknowledged span was stored');
  assert.equal(report.load.spansAcked, report.load.spansSent);
  assert.ok(report.delaySampledRequests > 0, 'the delay was sampled');
  assert.ok(report.load.answersLost > 0, 'some answers were lost: Kafka held those requests twice');
  assert.ok(
    report.counts.resentLeftOut >= report.load.answersLost,
    `the ingest left out ${report.counts.resentLeftOut} re-sent messages for ${report.load.answersLost} lost answers`,
  );
});
