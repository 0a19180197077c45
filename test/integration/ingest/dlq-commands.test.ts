/**
 * `tooltrail dlq list|show|replay` against the real broker and ClickHouse: letters listed by reason and time, one
 * shown without its attribute values, replayed after the cause is fixed through the ingest's exactly-once path,
 * stored once however often it is replayed, and dead-lettered again (once, no loop) while the cause is not fixed.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { InMemorySpanExporter, SimpleSpanProcessor, TracerProvider } from '@opentelemetry/sdk-trace';
import { registerDlqCommands } from '../../../cli/commands/dlq/command.ts';
import { Attr, EXECUTE_TOOL, GenAi, OtelResource, toolSpanName } from '../../../contract/index.ts';
import { type RunningIngest, startIngest } from '../../../ingest/service.ts';
import { fetchConsumerLag } from '../../../platform/kafka/index.ts';
import { metricValue } from '../../../platform/metrics/index.ts';
import { runCliInProcess } from '../../../testkit/cli-in-process.ts';
import { serializeSpans } from '../../../testkit/ingest.ts';
import { services } from '../../../testkit/services.ts';
import { until } from '../../../testkit/wait.ts';
import { createHarness, type Harness } from './harness.ts';

const SECRET_ARGUMENT = '{"account":"svc-payroll","token":"hunter2"}';

let h: Harness;
before(async () => {
  h = await createHarness('dlq_cmd');
});
after(async () => {
  await h?.close();
});

interface ListedLetter {
  id: string;
  reason: string;
  error: string;
  spans: number;
  state: string;
  replay_of: string | null;
  source: { topic: string };
}

const env = () => ({
  TOOLTRAIL_KAFKA_BROKERS: services.kafka.brokers.join(','),
  TOOLTRAIL_INGEST_DLQ_TOPIC: h.dlqTopic,
});
const dlq = (...args: string[]) => runCliInProcess([registerDlqCommands], ['dlq', ...args], env());

async function listed(...args: string[]): Promise<ListedLetter[]> {
  const r = await dlq('list', '--json', ...args);
  assert.equal(r.code, 0, r.err);
  return (JSON.parse(r.out) as { letters: ListedLetter[] }).letters;
}

async function waitForLetters(n: number): Promise<ListedLetter[]> {
  return until(
    `${n} dead letters are listed`,
    async () => {
      const letters = await listed();
      return letters.length >= n && letters;
    },
    { timeoutMs: 20_000, everyMs: 200 },
  );
}

/** Until the ingest's group has read and committed everything in the source topic. */
async function drained(): Promise<void> {
  await until(
    'the ingest caught up with the source topic',
    async () =>
      (await fetchConsumerLag(h.kafka, h.groupId, h.topic)).every(
        (p) => Number(p.highWatermark) === 0 || (p.lag === 0 && Number(p.committed) >= 0),
      ),
    { timeoutMs: 20_000, everyMs: 200 },
  );
}

/** Three spans of a plain OpenTelemetry SDK, no tooltrail.tenant, one carrying raw tool arguments. */
async function tenantlessMessage(): Promise<Buffer> {
  const exporter = new InMemorySpanExporter();
  const provider = new TracerProvider({
    resource: resourceFromAttributes({ [OtelResource.SERVICE_NAME]: 'third-party-agent' }),
    spanProcessors: [new SimpleSpanProcessor({ exporter })],
  });
  const tracer = provider.getTracer('plain-otel');
  for (const tool of ['list_accounts', 'disable_account']) {
    tracer
      .startSpan(toolSpanName(tool), {
        attributes: {
          [GenAi.OPERATION_NAME]: EXECUTE_TOOL,
          [GenAi.TOOL_NAME]: tool,
          [GenAi.TOOL_CALL_ARGUMENTS]: SECRET_ARGUMENT,
          [Attr.EFFECT]: tool === 'list_accounts' ? 'read' : 'mutation',
        },
      })
      .end();
  }
  tracer.startSpan('llm call').end();
  const bytes = Buffer.from(serializeSpans(exporter.getFinishedSpans()));
  await provider.shutdown();
  return bytes;
}

describe('tooltrail dlq (real Kafka, real ClickHouse)', () => {
  let ingest: RunningIngest | undefined;
  const startedAt = new Date();
  const rows = () =>
    h.count(`SELECT count() AS n FROM ${h.db.database}.tool_calls WHERE service_name = 'third-party-agent'`);
  const spans = () =>
    h.count(`SELECT count() AS n FROM ${h.db.database}.spans WHERE ServiceName = 'third-party-agent'`);

  after(async () => {
    await ingest?.stop();
  });

  it('lists a letter by reason and time, and shows it with headers, source and a summary without attribute values', async () => {
    await h.producer.send(h.topic, [{ key: 'third-party', value: await tenantlessMessage() }]);
    ingest = await startIngest(h.config(), { log: () => {} });
    const letters = await waitForLetters(1);
    assert.equal(letters.length, 1);
    const letter = letters[0]!;
    assert.equal(letter.reason, 'missing_tenant');
    assert.equal(letter.spans, 3);
    assert.equal(letter.state, 'pending');
    assert.equal(letter.source.topic, h.topic);
    assert.equal((await listed('--reason', 'missing_tenant')).length, 1);
    assert.equal((await listed('--reason', 'decode_error,invalid_tenant')).length, 0);
    assert.equal((await listed('--since', '1h')).length, 1);
    assert.equal((await listed('--since', 'now')).length, 0);
    assert.equal((await listed('--until', startedAt.toISOString())).length, 0);

    const table = await dlq('list');
    assert.match(table.out, /^ID\s+DEAD-LETTERED\s+REASON\s+SPANS\s+SOURCE\s+STATE/m);
    assert.match(
      table.out,
      new RegExp(`^${letter.id}\\s+\\S+\\s+missing_tenant\\s+3\\s+${h.topic}\\[\\d\\]@0\\s+pending$`, 'm'),
    );
    assert.match(table.out, /pending: missing_tenant 1\. Fix the cause/);

    const shown = await dlq('show', letter.id);
    assert.equal(shown.code, 0, shown.err);
    assert.match(shown.out, /reason\s+missing_tenant/);
    assert.match(shown.out, /tooltrail-dlq-reason: missing_tenant/);
    assert.match(shown.out, new RegExp(`source\\s+${h.topic}\\[\\d\\]@0`));
    assert.match(shown.out, /service\.name=third-party-agent tooltrail\.tenant=\(none\)/);
    assert.match(shown.out, /tool=disable_account effect=mutation/);
    assert.match(shown.out, /keys .*gen_ai\.tool\.call\.arguments/, 'the key is named');
    const json = await dlq('show', letter.id, '--json');
    for (const out of [shown.out, json.out]) {
      assert.ok(!out.includes('hunter2') && !out.includes('svc-payroll'), 'never the raw tool arguments');
    }
    assert.equal((JSON.parse(json.out) as { summary: { spans: number } }).summary.spans, 3);

    const missing = await dlq('show', '0:999');
    assert.equal(missing.code, 1);
    assert.match(missing.err, /no letter 0:999/);
    const bad = await dlq('list', '--reason', 'rejected_everything');
    assert.equal(bad.code, 2);
    assert.match(bad.err, /--reason "rejected_everything": one of decode_error, missing_tenant/);
  });

  it('dead-letters a replay again, once and naming its origin, while the cause is not fixed', async () => {
    const [first] = await listed();
    const r = await dlq('replay', '--reason', 'missing_tenant');
    assert.equal(r.code, 0, r.err);
    assert.match(r.out, /^replayed 1 letter\(s\) to /);
    const letters = await waitForLetters(2);
    await drained();
    const again = await listed();
    assert.equal(again.length, 2, 'one more letter, no loop');
    assert.equal(again[0]?.state, 'replayed');
    assert.equal(again[1]?.reason, 'missing_tenant');
    assert.equal(again[1]?.state, 'pending');
    assert.equal(again[1]?.replay_of, `${h.dlqTopic}:${first!.id}`);
    assert.match(again[1]!.error, /again, replayed from /);
    assert.equal(letters.length, 2);
    assert.equal(await rows(), 0, 'nothing stored without a tenant');
  });

  it('stores a replay once the cause is fixed, and a second and a forced replay store nothing more', async () => {
    await ingest?.stop();
    // The fix: a default tenant for spans without one.
    ingest = await startIngest(h.config({ defaultTenant: 'third-party' }), { log: () => {} });
    const [origin] = await listed();
    const r = await dlq('replay', '--reason', 'missing_tenant');
    assert.equal(r.code, 0, r.err);
    assert.match(r.out, /^replayed 1 letter\(s\) to .*; skipped 1/, 'the letter replayed before is skipped');
    assert.ok(r.out.includes(`skipped ${origin!.id} (missing_tenant): already replayed`), r.out);
    assert.equal(
      await h.waitForCount(`SELECT count() AS n FROM ${h.db.database}.tool_calls WHERE tenant = 'third-party'`, 2),
      2,
    );
    await drained();
    assert.equal(await rows(), 2);
    assert.equal(await spans(), 1);

    const second = await dlq('replay', '--reason', 'missing_tenant', '--json');
    assert.equal(second.code, 0, second.err);
    const outcome = JSON.parse(second.out) as { replayed: unknown[]; skipped: unknown[] };
    assert.equal(outcome.replayed.length, 0);
    assert.equal(outcome.skipped.length, 2);

    // Both letters again, the origin and the one of its failed replay: the same spans, left out by the ingest.
    const forced = await dlq('replay', '--all', '--force');
    assert.match(forced.out, /^replayed 2 letter\(s\)/);
    const running = ingest;
    await until(
      'both copies are counted as re-sends',
      async () => (await metricValue(running.metrics.resentMessages)) >= 2,
      {
        timeoutMs: 20_000,
        everyMs: 100,
      },
    );
    await drained();
    assert.equal(await metricValue(ingest.metrics.resentMessages), 2, 'both copies recognised as re-sends');
    assert.equal(await rows(), 2, 'still stored once');
    assert.equal(await spans(), 1);
    assert.equal(
      await h.count(
        `SELECT uniqExact(trace_id, span_id) AS n FROM ${h.db.database}.tool_calls WHERE tenant = 'third-party'`,
      ),
      2,
    );
    assert.equal((await listed()).length, 2, 'nothing dead-lettered by the stored replays');
  });

  it('refuses a replay that selects nothing explicitly, and letter ids that are not partition:offset', async () => {
    const none = await dlq('replay');
    assert.equal(none.code, 2);
    assert.match(none.err, /replay needs letter ids, --reason, --since\/--until, or --all/);
    const bad = await dlq('replay', 'abc');
    assert.equal(bad.code, 2);
    assert.match(bad.err, /letter id "abc": use partition:offset/);
  });
});
