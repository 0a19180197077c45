/**
 * The collector over real sockets, with the probe's shapes of abuse: lying Content-Lengths, chunked framing that
 * lies (sizes larger than the data, sizes that are not hex, chunked with a Content-Length), pipelined garbage after
 * a request, bodies cut off mid-way, slow headers and slow bodies that hit the timeouts, JSON spelling a field both
 * ways, attribute values nested past the limit in JSON and protobuf. Rules: no 5xx; every refusal says why (a
 * google.rpc.Status message, `no_reason`); after every connection closed the collector holds no slot and no byte
 * (`slot_leaked`), and another tenant is served (`other_tenant_refused`).
 */
import { loadCollectorConfig } from '../../collector/config.ts';
import { type Collector, createCollector } from '../../collector/factory.ts';
import { encodeExportTraceServiceRequest } from '../../platform/otlp/index.ts';
import { inFlightOf, postEmptyExport } from '../../testkit/collector-probe/check.ts';
import { exchange, responsesOf, type WireStep } from '../../testkit/collector-probe/wire.ts';
import { nestedValue } from '../../testkit/otlp-requests.ts';
import { clip, type FuzzTarget, TargetReport } from '../report.ts';
import { Rng } from '../rng.ts';

const TOKEN = 'fuzz-socket-token-0123456789';
const OTHER_TOKEN = 'fuzz-socket-other-0123456789';

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

function caseBody(rng: Rng): { body: Buffer; type: string; label: string } {
  const depth = rng.int(30, 36);
  const list = rng.bool();
  const shape = rng.int(0, 3);
  if (shape === 0) {
    const body = JSON.stringify({ resourceSpans: [{ scopeSpans: [{ spans: [SPAN] }] }], resource_spans: [] });
    return { body: Buffer.from(body), type: 'application/json', label: 'both-spellings' };
  }
  if (shape === 1) {
    const attributes = [{ key: 'deep', value: nestedJson(depth, list) }];
    const body = JSON.stringify({ resourceSpans: [{ scopeSpans: [{ spans: [{ ...SPAN, attributes }] }] }] });
    return { body: Buffer.from(body), type: 'application/json', label: `json depth=${depth} list=${list}` };
  }
  const span = {
    traceId: Buffer.from(SPAN.traceId, 'hex'),
    spanId: Buffer.from(SPAN.spanId, 'hex'),
    name: 's',
    kind: 1,
    startTimeUnixNano: SPAN.startTimeUnixNano,
    endTimeUnixNano: SPAN.endTimeUnixNano,
    attributes: [{ key: 'deep', value: nestedValue(depth, list) }],
  };
  const body = Buffer.from(encodeExportTraceServiceRequest({ resourceSpans: [{ scopeSpans: [{ spans: [span] }] }] }));
  return { body, type: 'application/x-protobuf', label: `protobuf depth=${depth} list=${list}` };
}

/** The framing of a body: a Content-Length that may lie, or chunks that may lie. */
function framed(rng: Rng, body: Buffer): { headers: string; bytes: Buffer; label: string } {
  if (rng.bool(0.7)) {
    const lie = rng.int(0, 3); // 0 true length, 1 shorter, 2 longer (the body never completes), 3 absurd
    const length = [body.length, Math.max(0, body.length - rng.int(1, 8)), body.length + rng.int(1, 64), 2 ** 40][lie];
    return { headers: `Content-Length: ${length}\r\n`, bytes: body, label: `length lie=${lie}` };
  }
  const lie = rng.int(0, 3); // 0 honest, 1 a size larger than its data, 2 a size that is not hex, 3 with a Content-Length
  const size = lie === 1 ? body.length + rng.int(1, 4096) : body.length;
  const sizeText = lie === 2 ? rng.pick(['zz', '-1', '0x10', ' ', 'ffffffffffffffffff']) : size.toString(16);
  const chunks = Buffer.concat([Buffer.from(`${sizeText}\r\n`), body, Buffer.from(lie === 1 ? '' : '\r\n0\r\n\r\n')]);
  const headers = `Transfer-Encoding: chunked\r\n${lie === 3 ? `Content-Length: ${rng.int(0, body.length)}\r\n` : ''}`;
  return { headers, bytes: chunks, label: `chunked lie=${lie}` };
}

/** One case: the steps written on one connection, and whether the client then waits for the collector. */
function socketCase(rng: Rng): { steps: WireStep[]; keep: boolean; label: string } {
  const { body, type, label } = caseBody(rng);
  const frame = framed(rng, body);
  const head = `POST /v1/traces HTTP/1.1\r\nHost: x\r\nContent-Type: ${type}\r\n${frame.headers}Authorization: Bearer ${TOKEN}\r\n\r\n`;
  const cut = rng.bool(0.3) ? rng.int(0, frame.bytes.length) : frame.bytes.length;
  const after = rng.bool(0.5) ? Buffer.from(`${rng.string(16)}\r\n\r\n`) : Buffer.alloc(0);
  const pace = rng.int(0, 19); // 0: slow headers, 1: slow body, otherwise all at once
  let steps: WireStep[];
  if (pace === 0) steps = [...head.slice(0, 40)].map((c) => ({ write: c, pauseMs: 100 }));
  else if (pace === 1) steps = [{ write: head }, ...[...'{"resourceSpans"'].map((c) => ({ write: c, pauseMs: 150 }))];
  else steps = [{ write: Buffer.concat([Buffer.from(head), frame.bytes.subarray(0, cut), after]) }];
  return {
    steps,
    keep: pace <= 1,
    label: `${label} ${frame.label} cut=${cut}/${frame.bytes.length} after=${after.length} pace=${pace}`,
  };
}

async function held(collector: Collector): Promise<string> {
  const g = inFlightOf(await collector.metrics.render());
  return `${g.requests}/${g.bytes}`;
}

/** Every collector answer with a 4xx status carries a google.rpc.Status message (JSON or protobuf field 2). */
function withoutReason(received: string): string | undefined {
  for (const r of responsesOf(received)) {
    if (r.status < 400 || r.status >= 500) continue;
    const json = /"message":"[^"]+"/.test(r.body);
    const protobuf = r.headers['content-type'] === 'application/x-protobuf' && r.body.includes('\x12');
    if (!json && !protobuf) return `${r.status} ${r.body}`;
  }
  return undefined;
}

export const socketsTarget: FuzzTarget = {
  name: 'collector-sockets',
  async run(cases, seed) {
    const report = new TargetReport('collector-sockets');
    const rng = new Rng(seed);
    const config = loadCollectorConfig({
      env: { TOOLTRAIL_COLLECTOR_TOKENS: `${TOKEN}=fuzz-tenant,${OTHER_TOKEN}=fuzz-other` },
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
        const { received } = await exchange(port, c.steps, { after: c.keep ? 'keep' : 'end', timeoutMs: 5_000 });
        const status = /^HTTP\/1\.1 (\d{3})/.exec(received)?.[1] ?? 'closed';
        report.outcome(status);
        if (/^HTTP\/1\.1 5\d\d/m.test(received)) {
          report.violation({ kind: 'server_error', index: i, input: c.label, answer: clip(received) });
        }
        const bare = withoutReason(received);
        if (bare) report.violation({ kind: 'no_reason', index: i, input: c.label, answer: clip(bare) });
        let now = await held(collector);
        for (let t = 0; now !== '0/0' && t < 100; t++) {
          await new Promise((r) => setTimeout(r, 20));
          now = await held(collector);
        }
        if (now !== '0/0') report.violation({ kind: 'slot_leaked', index: i, input: c.label, answer: `held ${now}` });
        const other = await postEmptyExport(port, OTHER_TOKEN).catch((err: Error) => ({
          status: -1,
          body: err.message,
        }));
        if (other.status !== 200) {
          const answer = `status ${other.status} ${clip(other.body)}`;
          report.violation({ kind: 'other_tenant_refused', index: i, input: c.label, answer });
        }
      }
    } finally {
      await collector.close();
    }
    return report;
  },
};
