/**
 * Runs one probe case against a collector and checks what must hold after it: the answers are the precise ones
 * the case expects, the in-flight gauges (requests and bytes) come back to 0, and another tenant is served (200)
 * while the abuse holds what it can and after it. Problems are returned as lines, never thrown, so the test, the
 * fuzzer and the chaos soak each report them their own way.
 */
import { request as httpRequest } from 'node:http';
import type { Expected, ProbeCase, ProbeTarget, Seen } from './cases.ts';

export interface InFlight {
  requests: number;
  bytes: number;
}

export interface ProbeChecks {
  /** The collector's in-flight gauges; absent where other traffic shares the collector (the chaos soak). */
  inFlight?: () => Promise<InFlight>;
  /** How long the gauges may take to come back to 0 once the case is over. */
  settleMs: number;
  /** Another tenant's request: resolves to its answer (200 expected). */
  served: () => Promise<Served>;
}

export interface Served {
  status: number;
  /** The answer's body (a refusal's reason). */
  body: string;
}

export interface ProbeOutcome {
  name: string;
  seen: Seen[];
  /** The other tenant's status while the abuse held (cases that hold something), and after it. */
  servedDuring: Served | undefined;
  servedAfter: Served;
  held: InFlight | undefined;
  problems: string[];
}

function matches(seen: Seen, expected: Expected): boolean {
  if (expected === 'closed') return seen.status === 'closed';
  return seen.status === expected.status && expected.reason.test(seen.body);
}

const show = (e: Expected) => (e === 'closed' ? 'closed' : `${e.status} ${e.reason}`);
const clip = (s: string) => (s.length > 160 ? `${s.slice(0, 160)}...` : s);

export async function checkProbeCase(t: ProbeTarget, c: ProbeCase, checks: ProbeChecks): Promise<ProbeOutcome> {
  const problems: string[] = [];
  let servedDuring: Served | undefined;
  const seen = await c.play(t, async () => {
    servedDuring = await checks.served().catch(failedServed);
  });
  const expected = c.expect(t);
  const answers = seen.map((s) => `${s.status} ${clip(s.body)}`).join(' | ');
  if (seen.length !== expected.length || !expected.every((e, i) => matches(seen[i] as Seen, e))) {
    problems.push(`answered [${answers}], expected [${expected.map(show).join(' | ')}]`);
  }
  if (servedDuring !== undefined && servedDuring.status !== 200) {
    problems.push(`another tenant got ${servedDuring.status} ${clip(servedDuring.body)} while the abuse held`);
  }
  let held: InFlight | undefined;
  if (checks.inFlight) {
    const until = Date.now() + checks.settleMs;
    held = await checks.inFlight();
    while ((held.requests !== 0 || held.bytes !== 0) && Date.now() < until) {
      await new Promise((r) => setTimeout(r, 25));
      held = await checks.inFlight();
    }
    if (held.requests !== 0 || held.bytes !== 0) {
      problems.push(`still held after the case: ${held.requests} request(s), ${held.bytes} byte(s)`);
    }
  }
  const servedAfter = await checks.served().catch(failedServed);
  if (servedAfter.status !== 200) {
    problems.push(`another tenant got ${servedAfter.status} ${clip(servedAfter.body)} after the case`);
  }
  return { name: c.name, seen, servedDuring, servedAfter, held, problems };
}

const failedServed = (err: Error): Served => ({ status: -1, body: err.message });

/** An empty OTLP/JSON export by `token`: 200 when the collector admits that tenant. */
export function postEmptyExport(port: number, token: string): Promise<Served> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      {
        host: '127.0.0.1',
        port,
        path: '/v1/traces',
        method: 'POST',
        agent: false,
        headers: { 'content-type': 'application/json', 'content-length': 2, authorization: `Bearer ${token}` },
      },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (d: string) => {
          body += d;
        });
        res.once('end', () => resolve({ status: res.statusCode ?? 0, body }));
      },
    );
    req.once('error', reject);
    req.setTimeout(10_000, () => req.destroy(new Error('no answer within 10 s')));
    req.end('{}');
  });
}

/** The in-flight gauges from a collector's Prometheus text (its /metrics body). */
export function inFlightOf(metricsText: string): InFlight {
  const read = (name: string) => Number(new RegExp(`^${name} (\\d+)$`, 'm').exec(metricsText)?.[1] ?? 'NaN');
  return {
    requests: read('tooltrail_collector_in_flight_requests'),
    bytes: read('tooltrail_collector_in_flight_bytes'),
  };
}
