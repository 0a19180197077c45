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
import { freePort } from '../../../services/process.ts';
import type { ManagedService } from '../../../services/service.ts';
import { syntheticMessage } from '../../../testkit/ingest.ts';
import { until } from '../../../testkit/wait.ts';
import { createHarness, type Harness } from './harness.ts';

// Our OWN ClickHouse (temp home, its own port): this test stops it; the shared one on 8123 is never touched.
let home: string;
let clickhouse: ManagedService;
let h: Harness;

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
      const countSql = `SELECT count() AS n FROM ${db}.tool_calls WHERE tenant = 'o'`;
      await h.produce(Array.from({ length: 20 }, (_, i) => syntheticMessage({ tenant: 'o', toolSpans: 10, seed: i })));
      const ingest = await startIngest(h.config(), { log: () => {} });
      try {
        assert.equal(await h.waitForCount(countSql, 200), 200);
        // The commit follows the insert: a moment after the rows are visible (longer on a loaded machine).
        await until('the stored messages are committed', async () => (await totalLag()) === 0, {
          timeoutMs: 20_000,
          everyMs: 100,
        });
        const before = await committed();

        await clickhouse.down();
        await h.produce(
          Array.from({ length: 30 }, (_, i) => syntheticMessage({ tenant: 'o', toolSpans: 10, seed: 100 + i })),
        );
        const failures = () => metricValue(ingest.metrics.insertFailures);
        await until('inserts were tried and failed (then retried)', async () => (await failures()) >= 2, {
          timeoutMs: 10_000,
        });
        // Two more failed attempts later, the ingest still working at the same batch: still nothing committed.
        const seen = await failures();
        await until('the ingest retried twice more', async () => (await failures()) >= seen + 2, { timeoutMs: 20_000 });
        assert.equal(await committed(), before, 'no offset committed while ClickHouse is down');
        assert.equal(await totalLag(), 30, 'the lag grew by the unstored messages');

        await clickhouse.up();
        assert.equal(await h.waitForCount(countSql, 500, 30_000), 500);
        // A late duplicate would be stored before the markers sent after every message.
        await h.storedThroughMarkers();
        assert.equal(await h.count(countSql), 500, 'no duplicate after the retries');
        assert.equal(
          await h.count(`SELECT uniqExact(trace_id, span_id) AS n FROM ${db}.tool_calls WHERE tenant = 'o'`),
          500,
        );
        await until('caught up and committed', async () => (await totalLag()) === 0, {
          timeoutMs: 30_000,
          everyMs: 100,
        });
      } finally {
        await ingest.stop();
      }
    });
  });
