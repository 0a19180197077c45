// test-lane: self-contained (a fresh database, its own topics and consumer groups; scripts/test-lanes.js)
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { fetchConsumerLag, KAFKA_CLIENTS } from '../../../platform/kafka/index.ts';
import { syntheticMessage } from '../../../testkit/ingest.ts';
import { sleep, until } from '../../../testkit/wait.ts';
import { createHarness, type Harness } from './harness.ts';

const CHILD = fileURLToPath(new URL('./ingest-child.ts', import.meta.url));

function startChild(env: NodeJS.ProcessEnv): { child: ChildProcess; stderr: () => string } {
  const child = spawn(process.execPath, ['--import', 'tsx', CHILD], { env, stdio: ['ignore', 'ignore', 'pipe'] });
  let err = '';
  child.stderr?.on('data', (d: Buffer) => {
    err += d.toString();
  });
  return { child, stderr: () => err };
}

// How long a fresh child may take to store its first batch: the waits end as soon as it does.
const FIRST_BATCH_WITHIN_MS = 120_000;

for (const client of KAFKA_CLIENTS)
  describe(`ingest crash recovery (child process, real Kafka, real ClickHouse, ${client})`, () => {
    let h: Harness;
    before(async () => {
      h = await createHarness('crash', { client });
    });
    after(async () => {
      await h?.close();
    });

    it('stores exactly N rows after several kill -9 in the middle of batches and a restart', async (t) => {
      const MESSAGES = 300;
      const TOOL_SPANS = 40;
      const N = MESSAGES * TOOL_SPANS;
      await h.produce(
        Array.from({ length: MESSAGES }, (_, i) =>
          syntheticMessage({ tenant: 'crash', toolSpans: TOOL_SPANS, seed: i }),
        ),
      );
      const db = h.db.database;
      const countSql = `SELECT count() AS n FROM ${db}.tool_calls WHERE tenant = 'crash'`;
      // Small batches and a slow fetch cadence: many batches, so kills land between INTENT, STORE and COMMIT.
      const env = h.env({ TOOLTRAIL_INGEST_BATCH_MAX_ROWS: '400', TOOLTRAIL_INGEST_LINGER_MS: '20' });
      const killedAt: number[] = [];
      for (let round = 0; round < 3; round++) {
        const { child, stderr } = startChild(env);
        const before = await h.count(countSql);
        // Wait until this run stored something, then kill it a moment later, mid-stream. A child starting on a
        // loaded machine (tsx, both Kafka clients, the group join) can take tens of seconds before its first batch.
        await until(`run ${round} stores its first batch`, async () => (await h.count(countSql)) > before, {
          timeoutMs: FIRST_BATCH_WITHIN_MS,
          everyMs: 20,
        });
        // The fault's timing, not a wait: a random moment into the stream, so kills land at different steps.
        await sleep(30 + Math.floor(Math.random() * 120));
        child.kill('SIGKILL');
        await once(child, 'exit');
        const n = await h.count(countSql);
        killedAt.push(n);
        t.diagnostic(
          `round ${round}: killed at ${n} rows; ${stderr().match(/recorded range/g)?.length ?? 0} recorded ranges re-used`,
        );
        if (n >= N) break;
      }
      assert.ok(
        killedAt.some((n) => n > 0 && n < N),
        `at least one kill must land mid-ingest (counts at kill: ${killedAt.join(', ')})`,
      );
      const { child, stderr } = startChild(env);
      try {
        const n = await h.waitForCount(countSql, N, 180_000);
        assert.equal(n, N, `rows after restart (kills at ${killedAt.join(', ')}); child said: ${stderr()}`);
        // A late duplicate would be stored before the markers sent after every message (a loss shows as fewer).
        await h.storedThroughMarkers();
        assert.equal(await h.count(countSql), N);
        assert.equal(
          await h.count(`SELECT uniqExact(trace_id, span_id) AS n FROM ${db}.tool_calls WHERE tenant = 'crash'`),
          N,
        );
        assert.equal(await h.count(`SELECT count() AS n FROM ${db}.spans WHERE Tenant = 'crash'`), MESSAGES);
        t.diagnostic(`final run: ${stderr().match(/recorded range/g)?.length ?? 0} recorded ranges re-used`);
        // The commit follows the insert: a moment after the markers are visible.
        const totalLag = async () =>
          (await fetchConsumerLag(h.kafka, h.groupId, h.topic)).reduce((s, l) => s + l.lag, 0);
        await until('everything is committed', async () => (await totalLag()) === 0, {
          timeoutMs: 30_000,
          everyMs: 100,
          describe: async () => `lag ${await totalLag()}`,
        });
      } finally {
        child.kill('SIGTERM');
        await once(child, 'exit');
      }
    });

    it('finishes the batch in flight on SIGTERM, exits 0, and a restart continues without loss or duplicate', async () => {
      const before = await h.count(`SELECT count() AS n FROM ${h.db.database}.tool_calls`);
      const MESSAGES = 100;
      const TOOL_SPANS = 40;
      await h.produce(
        Array.from({ length: MESSAGES }, (_, i) =>
          syntheticMessage({ tenant: 'term', toolSpans: TOOL_SPANS, seed: 10_000 + i }),
        ),
      );
      const env = h.env({ TOOLTRAIL_INGEST_BATCH_MAX_ROWS: '400' });
      const countSql = `SELECT count() AS n FROM ${h.db.database}.tool_calls WHERE tenant = 'term'`;
      const first = startChild(env);
      // SIGTERM only once it stores: a child killed while still starting exits by the signal, not by its handler.
      await until('the first child stores its first batch', async () => (await h.count(countSql)) > 0, {
        timeoutMs: FIRST_BATCH_WITHIN_MS,
        everyMs: 20,
      });
      first.child.kill('SIGTERM');
      const [code] = await once(first.child, 'exit');
      assert.equal(code, 0, `clean exit on SIGTERM; child said: ${first.stderr()}`);
      const second = startChild(env);
      try {
        assert.equal(await h.waitForCount(countSql, MESSAGES * TOOL_SPANS, 120_000), MESSAGES * TOOL_SPANS);
        // A late duplicate would be stored before the markers sent after every message.
        await h.storedThroughMarkers();
        assert.equal(await h.count(countSql), MESSAGES * TOOL_SPANS);
        assert.ok(before >= 0);
      } finally {
        second.child.kill('SIGTERM');
        await once(second.child, 'exit');
      }
    });
  });
