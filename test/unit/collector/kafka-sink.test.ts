import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, it, mock } from 'node:test';
import { defaultCollectorConfig } from '../../../collector/config.ts';
import { SinkUnavailableError } from '../../../collector/sink.ts';
import { createKafkaSink, TENANT_HEADER } from '../../../collector/sinks/kafka-sink.ts';
import {
  MESSAGE_ID_HEADER,
  messageIdBytes,
  type OutgoingMessage,
  type Producer,
} from '../../../platform/kafka/index.ts';
import { bytesToHex, decodeExportTraceServiceRequest } from '../../../platform/otlp/index.ts';
import { newTraceId, request, span } from '../../../testkit/otlp-requests.ts';

/** A producer whose sends stay pending until the test acknowledges or fails them. */
class FakeProducer implements Producer {
  static created = 0;
  readonly sends: { topic: string; messages: OutgoingMessage[]; ack(): void; fail(e: Error): void }[] = [];
  connected = false;
  constructor() {
    FakeProducer.created++;
  }
  async connect() {
    this.connected = true;
  }
  send(topic: string, messages: OutgoingMessage[]): Promise<void> {
    return new Promise((resolve, reject) => this.sends.push({ topic, messages, ack: resolve, fail: reject }));
  }
  async disconnect() {
    this.connected = false;
  }
}

const flush = async () => {
  for (let i = 0; i < 5; i++) await new Promise((r) => setImmediate(r));
};

function sinkWith(producers: FakeProducer[], slots = 1) {
  const config = {
    ...defaultCollectorConfig({}).kafka,
    sendTimeoutMs: 1_000,
    unavailableRetryAfterSeconds: 5,
    producers: slots,
  };
  return createKafkaSink({
    config,
    createProducer: () => {
      const p = new FakeProducer();
      producers.push(p);
      return p;
    },
    probe: async () => true,
  });
}

describe('Kafka sink', () => {
  beforeEach(() => mock.timers.enable({ apis: ['setTimeout', 'Date'] }));
  afterEach(() => mock.timers.reset());

  it('produces one message per trace, keyed by trace id hex, with the tenant header, and resolves on ack', async () => {
    const producers: FakeProducer[] = [];
    const sink = sinkWith(producers);
    const t1 = newTraceId();
    const t2 = newTraceId();
    const req = request([span({ traceId: t1 }), span({ traceId: t2 }), span({ traceId: t1 })]);
    let done = false;
    const write = sink.write(req, { tenant: 'acme', spanCount: 3 }).then(() => {
      done = true;
    });
    await flush();
    const send = producers[0]?.sends[0];
    assert.ok(send);
    assert.equal(send.topic, 'otlp_spans');
    assert.deepEqual(send.messages.map((m) => m.key).sort(), [bytesToHex(t1), bytesToHex(t2)].sort());
    for (const m of send.messages) {
      assert.equal(m.headers?.[TENANT_HEADER], 'acme');
      const spans = decodeExportTraceServiceRequest(m.value).resourceSpans.flatMap((rs) =>
        rs.scopeSpans.flatMap((ss) => ss.spans),
      );
      assert.ok(spans.every((s) => bytesToHex(s.traceId) === m.key));
      assert.equal(spans.length, m.key === bytesToHex(t1) ? 2 : 1);
    }
    assert.equal(done, false, 'must not resolve before Kafka acknowledged');
    send.ack();
    await write;
    assert.equal(done, true);
  });

  it('gives a request sent again the same message ids (the header the ingest recognises a re-send by)', async () => {
    const producers: FakeProducer[] = [];
    const sink = sinkWith(producers);
    const t1 = newTraceId();
    const req = request([span({ traceId: t1 }), span({ traceId: newTraceId() })]);
    const ids = async () => {
      const write = sink.write(req, { tenant: 'acme', spanCount: 2 });
      await flush();
      const send = producers[0]?.sends.at(-1);
      assert.ok(send);
      send.ack();
      await write;
      return send.messages.map((m) => {
        const id = m.headers?.[MESSAGE_ID_HEADER];
        assert.ok(Buffer.isBuffer(id));
        assert.deepEqual(id, messageIdBytes(m.value));
        return `${m.key}=${id.toString('hex')}`;
      });
    };
    const first = await ids();
    assert.equal(new Set(first.map((x) => x.split('=')[1])).size, 2, 'two traces, two ids');
    assert.deepEqual(await ids(), first);
  });

  it('sends the writes that arrive during a send together in the next one', async () => {
    const producers: FakeProducer[] = [];
    const sink = sinkWith(producers);
    const w1 = sink.write(request([span()]), { tenant: 'a', spanCount: 1 });
    await flush();
    const w2 = sink.write(request([span()]), { tenant: 'a', spanCount: 1 });
    const w3 = sink.write(request([span()]), { tenant: 'a', spanCount: 1 });
    await flush();
    const p = producers[0] as FakeProducer;
    assert.equal(p.sends.length, 1);
    p.sends[0]?.ack();
    await w1;
    await flush();
    assert.equal(p.sends.length, 2);
    assert.equal(p.sends[1]?.messages.length, 2);
    p.sends[1]?.ack();
    await Promise.all([w2, w3]);
  });

  it('keeps one send in flight per producer and batches the rest behind them', async () => {
    const producers: FakeProducer[] = [];
    const sink = sinkWith(producers, 2);
    const writes = Array.from({ length: 5 }, () => sink.write(request([span()]), { tenant: 'a', spanCount: 1 }));
    await flush();
    assert.equal(producers.length, 2);
    assert.deepEqual(
      producers.map((p) => p.sends.length),
      [1, 1],
    );
    producers[0]?.sends[0]?.ack();
    await flush();
    assert.equal(producers[0]?.sends[1]?.messages.length, 3, 'the three queued writes leave together');
    producers[1]?.sends[0]?.ack();
    producers[0]?.sends[1]?.ack();
    await Promise.all(writes);
  });

  it('opens the breaker at the send timeout, fails new writes fast, then probes again once Retry-After passed', async () => {
    const producers: FakeProducer[] = [];
    const sink = sinkWith(producers);
    const w1 = sink.write(request([span()]), { tenant: 'a', spanCount: 1 });
    await flush();
    mock.timers.tick(1_000);
    assert.equal(await sink.ready(), false);
    await assert.rejects(sink.write(request([span()]), { tenant: 'a', spanCount: 1 }), (e: SinkUnavailableError) => {
      assert.equal(e.retryAfterSeconds, 5);
      return true;
    });
    // Kafka answers the stuck send at last; after Retry-After the next write goes through.
    producers[0]?.sends[0]?.ack();
    await w1;
    mock.timers.tick(5_000);
    const w3 = sink.write(request([span()]), { tenant: 'a', spanCount: 1 });
    await flush();
    producers.at(-1)?.sends.at(-1)?.ack();
    await w3;
    assert.equal(await sink.ready(), true);
  });

  it('answers a write in flight at its timeout by its send, never 503 for spans Kafka may still store', async () => {
    const producers: FakeProducer[] = [];
    const sink = sinkWith(producers);
    let settled = false;
    const w1 = sink.write(request([span()]), { tenant: 'a', spanCount: 1 }).finally(() => {
      settled = true;
    });
    await flush();
    mock.timers.tick(3_000);
    await flush();
    assert.equal(settled, false, 'a 503 now would be retried by the client while Kafka may still store the spans');
    producers[0]?.sends[0]?.ack();
    await w1;

    // The same when the producer gives up after the timeout: then the answer is 503.
    mock.timers.tick(5_000);
    const w2 = sink.write(request([span()]), { tenant: 'a', spanCount: 1 });
    await flush();
    mock.timers.tick(3_000);
    producers.at(-1)?.sends.at(-1)?.fail(new Error('request timed out'));
    await assert.rejects(w2, (e: Error) => e instanceof SinkUnavailableError && /request timed out/.test(e.message));
  });

  it('never sends a write that timed out while it was queued', async () => {
    const producers: FakeProducer[] = [];
    const sink = sinkWith(producers);
    const w1 = sink.write(request([span()]), { tenant: 'a', spanCount: 1 });
    await flush();
    const w2 = sink.write(request([span()]), { tenant: 'a', spanCount: 1 });
    mock.timers.tick(1_000);
    await assert.rejects(w2, SinkUnavailableError);
    producers[0]?.sends[0]?.ack();
    await w1;
    await flush();
    assert.equal(producers[0]?.sends.length, 1, 'the queued write must not be produced after its 503');
  });

  it('rejects the batch when Kafka fails it and connects a fresh producer for the next one', async () => {
    const producers: FakeProducer[] = [];
    const sink = sinkWith(producers);
    const w1 = sink.write(request([span()]), { tenant: 'a', spanCount: 1 });
    await flush();
    producers[0]?.sends[0]?.fail(new Error('broker gone'));
    await assert.rejects(w1, /broker gone/);
    mock.timers.tick(5_000);
    const w2 = sink.write(request([span()]), { tenant: 'a', spanCount: 1 });
    await flush();
    assert.equal(producers.length, 2);
    producers[1]?.sends[0]?.ack();
    await w2;
  });
});
