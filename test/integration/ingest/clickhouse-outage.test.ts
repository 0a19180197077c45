import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { startIngest } from '../../../ingest/service.ts';
import { fetchConsumerLag, KAFKA_CLIENTS } from '../../../platform/kafka/index.ts';
import { metricValue } from '../../../platform/metrics/index.ts';
import { clickhouseService } from '../../../services/clickhouse/clickhouse.ts';
import { loadServicesConfig } from '../../../services/config.ts';
import { portFree } from '../../../services/process.ts';
import type { ManagedService } from '../../../services/service.ts';
import { syntheticMessage } from '../../../testkit/ingest.ts';
import { createHarness, type Harness } from './harness.ts';

// Our OWN ClickHouse (temp home, its own port): this test stops it; the shared one on 8123 is never touched.
let home: string;
let clickhouse: ManagedService;
let h: Harness;

async function freePort(): Promise<number> {
  for (let i = 0; i < 50; i++) {
    const port = 18_100 + Math.floor(Math.random() * 800);
    if (await portFree(port)) return port;
  }
  throw new Error('no free port for the test ClickHouse');
}

before(async () => {
  home = mkdtempSync(join(tmpdir(), 'tt-ingest-ch-'));
  const port = await freePort();
  clickhouse = clickhouseService(loadServicesConfig({ TOOLTRAIL_HOME: home, TOOLTRAIL_CLICKHOUSE_PORT: String(port) }));
  await clickhouse.up();
});
after(async () => {
  await clickhouse?.down();
  if (home) rmSync(home, { recursive: true, force: true });
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const committed = async () => (await fetchConsumerLag(h.kafka, h.groupId, h.topic)).map((l) => l.committed).join(',');
const totalLag = async () => (await fetchConsumerLag(h.kafka, h.groupId, h.topic)).reduce((s, l) => s + l.lag, 0);

for (const client of KAFKA_CLIENTS)
  describe(`ingest while ClickHouse is down (own ClickHouse instance, ${client})`, () => {
    before(async () => {
      await clickhouse.up(); // a no-op when the previous client's run left it running
      h = await createHarness('outage', { clickhouseUrl: clickhouse.endpoint, client });
    });
    after(async () => {
      await h?.close().catch(() => {});
    });

    it('commits nothing ahead of storage while ClickHouse is down, lets lag grow, then catches up to exactly N', async () => {
      const db = h.db.database;
      const countSql = `SELECT count() AS n FROM ${db}.tool_calls`;
      await h.produce(Array.from({ length: 20 }, (_, i) => syntheticMessage({ tenant: 'o', toolSpans: 10, seed: i })));
      const ingest = await startIngest(h.config(), { log: () => {} });
      try {
        assert.equal(await h.waitForCount(countSql, 200), 200);
        // The commit follows the insert: a moment after the rows are visible (longer on a loaded machine).
        for (const end = Date.now() + 20_000; (await totalLag()) > 0 && Date.now() < end; ) await sleep(100);
        const before = await committed();
        assert.equal(await totalLag(), 0);

        await clickhouse.down();
        await h.produce(
          Array.from({ length: 30 }, (_, i) => syntheticMessage({ tenant: 'o', toolSpans: 10, seed: 100 + i })),
        );
        const deadline = Date.now() + 10_000;
        while ((await metricValue(ingest.metrics.insertFailures)) < 2 && Date.now() < deadline) await sleep(50);
        assert.ok(
          (await metricValue(ingest.metrics.insertFailures)) >= 2,
          'inserts were tried and failed (then retried)',
        );
        await sleep(1_000);
        assert.equal(await committed(), before, 'no offset committed while ClickHouse is down');
        assert.equal(await totalLag(), 30, 'the lag grew by the unstored messages');

        await clickhouse.up();
        assert.equal(await h.waitForCount(countSql, 500, 30_000), 500);
        await sleep(500);
        assert.equal(await h.count(countSql), 500, 'no duplicate after the retries');
        assert.equal(await h.count(`SELECT uniqExact(trace_id, span_id) AS n FROM ${db}.tool_calls`), 500);
        const lagDeadline = Date.now() + 30_000;
        while ((await totalLag()) > 0 && Date.now() < lagDeadline) await sleep(100);
        assert.equal(await totalLag(), 0, 'caught up and committed');
      } finally {
        await ingest.stop();
      }
    });
  });
