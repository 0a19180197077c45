/**
 * The collector's HTTP surface through fastify `inject()`: POST /v1/traces with generated OTLP cases, and random
 * requests to /healthz, /readyz, /metrics and unknown paths. Rules: no 5xx for a client error (the only 5xx the
 * collector may answer is 503 from its sink, and the fuzz sink never fails), no exception out of the app, and on a
 * 200 every span of a well-formed body is either accepted (reached the sink) or counted in partial_success.
 */
import type { FastifyInstance } from 'fastify';
import { loadCollectorConfig } from '../../collector/config.ts';
import { buildCollectorServer } from '../../collector/server.ts';
import type { SpanSink } from '../../collector/sink.ts';
import type { TraceMessage } from '../../collector/split-by-trace.ts';
import {
  decodeExportTraceServiceRequest,
  decodeExportTraceServiceResponse,
  type ExportTraceServiceRequest,
} from '../../platform/otlp/index.ts';
import { otlpCase } from '../otlp-gen.ts';
import { clip, type FuzzTarget, TargetReport } from '../report.ts';
import { Rng, uri } from '../rng.ts';

const TOKEN = 'fuzz-token-0123456789abcdef';

/** Counts the spans it is handed and drops them; `loseOne` under-counts each write by one (the checker's own test). */
export class CountingSink implements SpanSink {
  readonly name = 'fuzz';
  spans = 0;
  constructor(private readonly loseOne = false) {}
  async write(request: ExportTraceServiceRequest): Promise<void> {
    for (const r of request.resourceSpans) for (const s of r.scopeSpans) this.spans += s.spans.length;
    if (this.loseOne) this.spans--;
  }
  async ready(): Promise<boolean> {
    return true;
  }
  async close(): Promise<void> {}
}

/**
 * The same for per-trace messages (the collector then prepares requests on its decode threads). Each message is
 * decoded as the ingest decodes Kafka payloads: spans in a message it cannot decode were acknowledged yet will
 * never be stored (`poisoned`).
 */
export class EncodedCountingSink extends CountingSink {
  poisoned = 0;
  async writeEncoded(messages: TraceMessage[]): Promise<void> {
    for (const m of messages) {
      try {
        const r = decodeExportTraceServiceRequest(m.value);
        this.spans += r.resourceSpans.reduce((n, rs) => n + rs.scopeSpans.reduce((k, ss) => k + ss.spans.length, 0), 0);
      } catch {
        this.poisoned += m.spanCount;
      }
    }
  }
}

async function buildApp(sink: SpanSink): Promise<FastifyInstance> {
  const config = loadCollectorConfig({
    env: { TOOLTRAIL_COLLECTOR_TOKENS: `${TOKEN}=fuzz-tenant` },
    // Small limits so bombs and huge bodies reach the 413 paths quickly.
    overrides: {
      sink: 'discard',
      decodeThreads: sink instanceof EncodedCountingSink ? 2 : 0,
      limits: { maxBodyBytes: 1024 * 1024, maxWireBytes: 1024 * 1024, maxInFlightBytes: 64 * 1024 * 1024 },
    },
  });
  return buildCollectorServer({ config, sink });
}

function rejectedOf(contentType: string | undefined, payload: Buffer): number | undefined {
  try {
    if (contentType?.startsWith('application/x-protobuf')) {
      return Number(decodeExportTraceServiceResponse(payload).partialSuccess?.rejectedSpans ?? 0);
    }
    const json = JSON.parse(payload.toString('utf8')) as { partialSuccess?: { rejectedSpans?: string | number } };
    return Number(json.partialSuccess?.rejectedSpans ?? 0);
  } catch {
    return undefined;
  }
}

/** Posts `cases` generated OTLP requests to a collector whose sink is `sink`. */
export async function fuzzOtlp(sink: CountingSink, cases: number, seed: number, name = 'otlp'): Promise<TargetReport> {
  const report = new TargetReport(name);
  const rng = new Rng(seed);
  const app = await buildApp(sink);
  let poisonedBefore = 0;
  try {
    for (let i = 0; i < cases; i++) {
      const c = otlpCase(rng, { token: TOKEN });
      const input = `${c.label} headers=${JSON.stringify(c.headers)} body=${clip(c.body.toString('base64'), 200)}`;
      report.cases++;
      const before = sink.spans;
      let res: Awaited<ReturnType<FastifyInstance['inject']>>;
      try {
        res = await app.inject({ method: 'POST', url: '/v1/traces', headers: c.headers, payload: c.body });
      } catch (err) {
        report.violation({ kind: 'crash', index: i, input, answer: clip(String((err as Error).stack)) });
        continue;
      }
      report.outcome(String(res.statusCode));
      if (res.statusCode >= 500) {
        report.violation({ kind: 'server_error', index: i, input, answer: `${res.statusCode} ${clip(res.body)}` });
      }
      const poisoned = sink instanceof EncodedCountingSink ? sink.poisoned : 0;
      if (res.statusCode === 200 && poisoned > poisonedBefore) {
        report.violation({
          kind: 'span_lost',
          index: i,
          input,
          answer: `200, but ${poisoned - poisonedBefore} accepted span(s) forwarded in a message the ingest cannot decode`,
        });
      }
      poisonedBefore = poisoned;
      if (res.statusCode === 200 && c.spans !== undefined) {
        const rejected = rejectedOf(res.headers['content-type'] as string | undefined, res.rawPayload);
        const accepted = sink.spans - before;
        if (rejected === undefined || accepted + rejected !== c.spans) {
          report.violation({
            kind: 'span_lost',
            index: i,
            input,
            answer: `sent ${c.spans}, accepted ${accepted}, rejected ${rejected}: ${clip(res.body)}`,
          });
        }
      }
    }
  } finally {
    await app.close();
  }
  return report;
}

export const otlpTarget: FuzzTarget = {
  name: 'otlp',
  run: (cases, seed) => fuzzOtlp(new CountingSink(), cases, seed),
};

/** The same cases through the decode threads (prepare-pool.ts), as with the Kafka sink. */
export const otlpThreadsTarget: FuzzTarget = {
  name: 'otlp-threads',
  run: (cases, seed) => fuzzOtlp(new EncodedCountingSink(), cases, seed, 'otlp-threads'),
};

const PROBE_PATHS = [
  '/healthz',
  '/readyz',
  '/metrics',
  '/v1/traces',
  '/',
  '/v1/logs',
  '/metrics/',
  '/healthz?',
  '//healthz',
];
const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'DELETE', 'OPTIONS', 'PATCH'] as const;

/** A random path, query string and headers against the collector's probes and unknown routes. */
export function probeRequest(rng: Rng): {
  method: (typeof METHODS)[number];
  url: string;
  headers: Record<string, string>;
} {
  let url = rng.pick(PROBE_PATHS);
  if (rng.bool(0.3)) url += `/${uri(rng.string(10))}`;
  if (rng.bool(0.2)) url += rng.pick(['%', '%zz', '%00', '%ff', '/..', '/../metrics', '#x']);
  if (rng.bool(0.5)) {
    const n = rng.int(1, 4);
    const pairs = Array.from(
      { length: n },
      () => `${uri(rng.string(6))}=${rng.bool(0.8) ? uri(rng.string(12)) : rng.pick(['%', '%E0%A4%A', '&&', '=='])}`,
    );
    url += `${url.includes('?') ? '&' : '?'}${pairs.join('&')}`;
  }
  const headers: Record<string, string> = {};
  if (rng.bool(0.3))
    headers.accept = rng.pick([
      'application/openmetrics-text',
      'text/html',
      '*/*',
      rng.string(10).replace(/[^\x20-\x7e]/g, ''),
    ]);
  if (rng.bool(0.3)) headers.authorization = rng.pick([`Bearer ${TOKEN}`, 'Bearer x', 'Basic Og==', '']);
  if (rng.bool(0.2)) headers['content-type'] = rng.pick(['application/json', 'text/plain', 'application/x-protobuf']);
  return { method: rng.pick(METHODS), url, headers };
}

export const probesTarget: FuzzTarget = {
  name: 'collector-probes',
  async run(cases, seed) {
    const report = new TargetReport('collector-probes');
    const rng = new Rng(seed);
    const app = await buildApp(new CountingSink());
    try {
      for (let i = 0; i < cases; i++) {
        const r = probeRequest(rng);
        const body = r.method === 'GET' || r.method === 'HEAD' ? undefined : rng.bytes(rng.int(0, 64));
        const input = `${r.method} ${r.url} ${JSON.stringify(r.headers)}`;
        report.cases++;
        try {
          const res = await app.inject({
            method: r.method,
            url: r.url,
            headers: r.headers,
            ...(body ? { payload: body } : {}),
          });
          report.outcome(String(res.statusCode));
          if (res.statusCode >= 500) {
            report.violation({ kind: 'server_error', index: i, input, answer: `${res.statusCode} ${clip(res.body)}` });
          }
        } catch (err) {
          report.violation({ kind: 'crash', index: i, input, answer: clip(String((err as Error).stack)) });
        }
      }
    } finally {
      await app.close();
    }
    return report;
  },
};
