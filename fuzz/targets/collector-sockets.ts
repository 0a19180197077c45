/**
 * The collector over real sockets, with the probe's shapes of abuse: lying Content-Lengths, pipelined garbage after
 * a request, bodies cut off mid-way, slow bodies that hit the request timeout, JSON spelling a field both ways,
 * attribute values nested past the limit in JSON and protobuf. Rules: no 5xx, and after every connection closed the
 * collector holds no slot and no byte (`slot_leaked`), so a well-behaved tenant is always admitted.
 */
import { connect } from 'node:net';
import { loadCollectorConfig } from '../../collector/config.ts';
import { type Collector, createCollector } from '../../collector/factory.ts';
import { type AnyValue, encodeExportTraceServiceRequest } from '../../platform/otlp/index.ts';
import { clip, type FuzzTarget, TargetReport } from '../report.ts';
import { Rng } from '../rng.ts';

const TOKEN = 'fuzz-socket-token-0123456789';

function nested(levels: number, list: boolean): AnyValue {
  if (levels <= 1) return { stringValue: 'x' };
  const inner = nested(levels - 1, list);
  return list ? { kvlistValue: { values: [{ key: 'k', value: inner }] } } : { arrayValue: { values: [inner] } };
}

function nestedJson(levels: number, list: boolean): unknown {
  if (levels <= 1) return { stringValue: 'x' };
  const inner = nestedJson(levels - 1, list);
  return list ? { kvlistValue: { values: [{ key: 'k', value: inner }] } } : { arrayValue: { values: [inner] } };
}

const SPAN = {
  traceId: '0af7651916cd43dd8448eb211c80319c',
  spanId: 'b7ad6b7169203331',
  name: 's',
  startTimeUnixNano: '1700000000000000000',
  endTimeUnixNano: '1700000000000000500',
};

/** One case's bytes: a body (JSON or protobuf), a Content-Length that may lie, and what follows on the wire. */
function socketCase(rng: Rng): { bytes: Buffer; label: string; slow: boolean } {
  const depth = rng.int(30, 36);
  const list = rng.bool();
  let body: Buffer;
  let type = 'application/json';
  const shape = rng.int(0, 3);
  if (shape === 0) {
    body = Buffer.from(JSON.stringify({ resourceSpans: [{ scopeSpans: [{ spans: [SPAN] }] }], resource_spans: [] }));
  } else if (shape === 1) {
    const attributes = [{ key: 'deep', value: nestedJson(depth, list) }];
    body = Buffer.from(JSON.stringify({ resourceSpans: [{ scopeSpans: [{ spans: [{ ...SPAN, attributes }] }] }] }));
  } else {
    type = 'application/x-protobuf';
    const span = {
      traceId: Buffer.from(SPAN.traceId, 'hex'),
      spanId: Buffer.from(SPAN.spanId, 'hex'),
      name: 's',
      kind: 1,
      startTimeUnixNano: SPAN.startTimeUnixNano,
      endTimeUnixNano: SPAN.endTimeUnixNano,
      attributes: [{ key: 'deep', value: nested(depth, list) }],
    };
    body = Buffer.from(encodeExportTraceServiceRequest({ resourceSpans: [{ scopeSpans: [{ spans: [span] }] }] }));
  }
  const lie = rng.int(0, 3); // 0 true length, 1 shorter, 2 longer (the body never completes), 3 absurd
  const length = [body.length, Math.max(0, body.length - rng.int(1, 8)), body.length + rng.int(1, 64), 2 ** 40][lie];
  const cut = rng.bool(0.3) ? rng.int(0, body.length) : body.length;
  const after = rng.bool(0.5) ? Buffer.from(`${rng.string(16)}\r\n\r\n`) : Buffer.alloc(0);
  const head =
    `POST /v1/traces HTTP/1.1\r\nHost: x\r\nContent-Type: ${type}\r\nContent-Length: ${length}\r\n` +
    `Authorization: Bearer ${TOKEN}\r\n\r\n`;
  const slow = rng.bool(0.05);
  return {
    bytes: Buffer.concat([Buffer.from(head), body.subarray(0, cut), after]),
    label: `shape=${shape} depth=${depth} list=${list} lie=${lie} cut=${cut}/${body.length} after=${after.length} slow=${slow}`,
    slow,
  };
}

/** Sends the bytes; a slow case keeps the connection open until the collector closes it. Resolves with the answer. */
function send(port: number, bytes: Buffer, slow: boolean): Promise<string> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    let answer = '';
    socket.setEncoding('latin1');
    socket.on('data', (d: string) => {
      answer += d;
    });
    socket.on('error', () => {});
    socket.once('close', () => resolve(answer));
    socket.once('connect', () => socket.write(bytes, () => (slow ? undefined : socket.end())));
    setTimeout(() => socket.destroy(), 5_000).unref();
  });
}

async function held(collector: Collector): Promise<string> {
  const text = await collector.metrics.render();
  const read = (name: string) => new RegExp(`^${name} (\\d+)$`, 'm').exec(text)?.[1] ?? '?';
  return `${read('tooltrail_collector_in_flight_requests')}/${read('tooltrail_collector_in_flight_bytes')}`;
}

export const socketsTarget: FuzzTarget = {
  name: 'collector-sockets',
  async run(cases, seed) {
    const report = new TargetReport('collector-sockets');
    const rng = new Rng(seed);
    const config = loadCollectorConfig({
      env: { TOOLTRAIL_COLLECTOR_TOKENS: `${TOKEN}=fuzz-tenant` },
      overrides: {
        sink: 'discard',
        http: { host: '127.0.0.1', port: 0, headersTimeoutMs: 500, requestTimeoutMs: 1_000 },
      },
    });
    const collector = await createCollector(config, { quiet: true, notify: () => {} });
    const port = Number(new URL(await collector.start()).port);
    try {
      for (let i = 0; i < cases; i++) {
        const c = socketCase(rng);
        report.cases++;
        const answer = await send(port, c.bytes, c.slow);
        const status = /^HTTP\/1\.1 (\d{3})/.exec(answer)?.[1] ?? 'closed';
        report.outcome(status);
        if (/^HTTP\/1\.1 5\d\d/m.test(answer)) {
          report.violation({ kind: 'server_error', index: i, input: c.label, answer: clip(answer) });
        }
        let now = await held(collector);
        for (let t = 0; now !== '0/0' && t < 100; t++) {
          await new Promise((r) => setTimeout(r, 20));
          now = await held(collector);
        }
        if (now !== '0/0') report.violation({ kind: 'slot_leaked', index: i, input: c.label, answer: `held ${now}` });
      }
    } finally {
      await collector.close();
    }
    return report;
  },
};
