/**
 * The security probe's cases against the collector (issue 26), each one abuse a client can commit on the wire:
 * lying lengths (Content-Length and chunked), pipelined garbage after a valid request, slow headers and bodies,
 * both JSON spellings in one body, deep nesting in JSON and protobuf. Each case plays its bytes over real sockets
 * and says which answers the collector owes it: the precise status with its reason, or a closed connection where
 * no answer can reach the client. The checks that follow every case (nothing held, another tenant served) are in
 * check.ts.
 */
import { randomBytes } from 'node:crypto';
import { deepAttributeBody, nestedValue, protobufBody, request, span } from '../otlp-requests.ts';
import { exchange, postHead, responsesOf, type WireOptions, type WireStep } from './wire.ts';

/** What the cases need to know of the collector they abuse. */
export interface ProbeTarget {
  port: number;
  /** The abusing credential. */
  token: string;
  limits: {
    maxWireBytes: number;
    /** One credential's share of the slots and of the in-flight bytes. */
    tenantRequests: number;
    tenantBytes: number;
    headersTimeoutMs: number;
    requestTimeoutMs: number;
  };
}

/** One answer a case saw: a response, or a connection closed with none. */
export interface Seen {
  status: number | 'closed';
  body: string;
}

/** An answer the collector owes: this status and a body matching `reason`, or a connection closed without one. */
export type Expected = { status: number; reason: RegExp } | 'closed';

export interface ProbeCase {
  name: string;
  /** What the probe did and what must hold, in a line. */
  rule: string;
  /**
   * Plays the abuse and returns every answer, connections in order. `held` is called once while the abuse holds
   * what it can (connections open, bodies unfinished), so the checker can see another tenant served meanwhile.
   */
  play(t: ProbeTarget, held: () => Promise<void>): Promise<Seen[]>;
  expect(t: ProbeTarget): Expected[];
}

const JSON_TYPE = 'application/json';
const PROTOBUF = 'application/x-protobuf';

function jsonSpan(extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    traceId: randomBytes(16).toString('hex'),
    spanId: randomBytes(8).toString('hex'),
    name: 'probe',
    kind: 1,
    startTimeUnixNano: '1700000000000000000',
    endTimeUnixNano: '1700000000000000500',
    ...extra,
  };
}

const jsonBody = (spans: unknown[]) => JSON.stringify({ resourceSpans: [{ resource: {}, scopeSpans: [{ spans }] }] });

/** An OTLP/JSON attribute value `levels` deep: key-value lists of lists around a string (as nestedValue's). */
function nestedJson(levels: number): unknown {
  let value: unknown = { stringValue: 'x' };
  for (let i = 1; i < levels; i++) value = { kvlistValue: { values: [{ key: 'k', value }] } };
  return value;
}

const head = (t: ProbeTarget, type: string, framing: Record<string, string | number>) =>
  postHead({ 'Content-Type': type, Authorization: `Bearer ${t.token}`, ...framing });

/** Every answer on one connection; a connection closed before (or after no) answer adds `closed`. */
async function connection(t: ProbeTarget, steps: WireStep[], o: Partial<WireOptions> = {}): Promise<Seen[]> {
  const bound = 2 * t.limits.requestTimeoutMs + 2_000;
  const r = await exchange(t.port, steps, { after: 'end', timeoutMs: bound, ...o });
  const seen: Seen[] = responsesOf(r.received).map((x) => ({ status: x.status, body: x.body }));
  return seen.length > 0 ? seen : [{ status: 'closed', body: r.timedOut ? 'no answer before the bound' : '' }];
}

/** Opens `n` connections whose bodies never finish, calls `held` once all hold their slots, and collects them. */
async function unfinished(t: ProbeTarget, n: number, declared: number, held: () => Promise<void>): Promise<Seen[]> {
  const opened = Array.from({ length: n }, (_, i) =>
    connection(t, [{ write: `${head(t, JSON_TYPE, { 'Content-Length': declared })}{"resourceSpans":[` }], {
      after: 'keep',
    }).then((seen) => ({ i, seen })),
  );
  // Headers are in well before the headers timeout; the bodies wait for the request timeout.
  await new Promise((r) => setTimeout(r, Math.min(300, t.limits.requestTimeoutMs / 4)));
  await held();
  const done = await Promise.all(opened);
  // Which connection got the refusal depends on arrival order: compared by status.
  return done.flatMap((d) => d.seen).sort((a, b) => Number(a.status) - Number(b.status));
}

const NOT_OTLP = /"code":3,"message":"[^"]+/;
const TIMEOUT = /request_timeout.*http\.(headers|request)TimeoutMs/;

export const PROBE_CASES: ProbeCase[] = [
  {
    name: 'content-length-longer-than-body-then-hangup',
    rule: 'a body shorter than its Content-Length, then the client goes: no answer is owed, nothing stays held',
    play: (t) =>
      connection(
        t,
        [{ write: `${head(t, JSON_TYPE, { 'Content-Length': 4096 })}{"resourceSpans":[]}`, pauseMs: 200 }],
        {
          after: 'hangup',
        },
      ),
    expect: () => ['closed'],
  },
  {
    name: 'content-length-longer-than-body-kept-open',
    rule: 'a body shorter than its Content-Length on a connection kept open: 408 at http.requestTimeoutMs',
    play: (t, held) =>
      Promise.all([
        connection(t, [{ write: `${head(t, JSON_TYPE, { 'Content-Length': 4096 })}{"resourceSpans":[]}` }], {
          after: 'keep',
        }),
        new Promise((r) => setTimeout(r, 100)).then(held),
      ]).then(([seen]) => seen),
    expect: () => [{ status: 408, reason: TIMEOUT }],
  },
  {
    name: 'content-length-shorter-than-body',
    rule: 'a Content-Length shorter than the body: the truncated body is 400 not OTLP, the rest a malformed request',
    play: (t) => {
      const body = jsonBody([jsonSpan()]);
      const cut = head(t, JSON_TYPE, { 'Content-Length': 20 }) + body.slice(0, 20);
      return connection(t, [{ write: cut, pauseMs: 200 }, { write: body.slice(20) }]);
    },
    expect: () => [
      { status: 400, reason: NOT_OTLP },
      { status: 400, reason: /malformed_request/ },
    ],
  },
  {
    name: 'content-length-absurd',
    rule: 'a Content-Length of 2^40: 413 before a byte of the body is read',
    play: (t) =>
      connection(t, [{ write: `${head(t, PROTOBUF, { 'Content-Length': 2 ** 40 })}\x0a\x00` }], { after: 'response' }),
    expect: (t) => [{ status: 413, reason: new RegExp(`exceeds ${t.limits.maxWireBytes} bytes`) }],
  },
  {
    name: 'content-length-over-tenant-share-unfinished',
    rule: 'unfinished bodies declaring most of the body limit: the ones past the credential byte share are 429 before a byte is read',
    play: (t, held) => {
      const declared = t.limits.maxWireBytes - 1024;
      const fit = Math.floor(t.limits.tenantBytes / declared);
      return unfinished(t, fit + 1, declared, held);
    },
    expect: (t) => {
      const fit = Math.floor(t.limits.tenantBytes / (t.limits.maxWireBytes - 1024));
      return [
        ...Array.from({ length: fit }, () => ({ status: 408, reason: TIMEOUT })),
        { status: 429, reason: /this credential's share of request memory/ },
      ].sort(byStatus);
    },
  },
  {
    name: 'chunked-size-larger-than-data-then-hangup',
    rule: 'a chunk announcing more bytes than it carries, then the client goes: nothing stays held',
    play: (t) =>
      connection(
        t,
        [{ write: `${head(t, JSON_TYPE, { 'Transfer-Encoding': 'chunked' })}400\r\n{"resourceSpans":[`, pauseMs: 200 }],
        { after: 'hangup' },
      ),
    expect: () => ['closed'],
  },
  {
    name: 'chunked-size-not-hex',
    rule: 'a chunk size that is not hexadecimal: 400 naming the malformed framing',
    play: (t) =>
      connection(t, [{ write: `${head(t, JSON_TYPE, { 'Transfer-Encoding': 'chunked' })}zz\r\n{}\r\n0\r\n\r\n` }]),
    expect: () => [{ status: 400, reason: /malformed_request.*chunk/i }],
  },
  {
    name: 'chunked-and-content-length',
    rule: 'Transfer-Encoding chunked with a Content-Length (a smuggling shape): 400 naming the malformed framing',
    play: (t) =>
      connection(t, [
        {
          write: `${head(t, JSON_TYPE, { 'Content-Length': 2, 'Transfer-Encoding': 'chunked' })}2\r\n{}\r\n0\r\n\r\n`,
        },
      ]),
    expect: () => [{ status: 400, reason: /malformed_request/ }],
  },
  {
    name: 'chunked-past-the-body-limit',
    rule: 'a chunked body streaming past limits.maxWireBytes: 413 once the limit is passed, the rest is not kept',
    play: (t) => {
      const chunk = Buffer.alloc(64 * 1024, 0x20);
      const frame = Buffer.concat([Buffer.from(`${chunk.length.toString(16)}\r\n`), chunk, Buffer.from('\r\n')]);
      const frames = Math.ceil(t.limits.maxWireBytes / chunk.length) + 2;
      const steps: WireStep[] = [{ write: head(t, JSON_TYPE, { 'Transfer-Encoding': 'chunked' }) }];
      for (let i = 0; i < frames; i++) steps.push({ write: frame });
      steps.push({ write: '0\r\n\r\n' });
      return connection(t, steps, { after: 'response' });
    },
    expect: (t) => [{ status: 413, reason: new RegExp(`exceeds ${t.limits.maxWireBytes} bytes`) }],
  },
  {
    name: 'pipelined-garbage-after-valid-request',
    rule: 'the probe lock-out: a valid request and bytes the parser rejects in one write: 400 saying the request went unanswered',
    play: (t) => connection(t, [{ write: `${head(t, JSON_TYPE, { 'Content-Length': 2 })}{}garbage\r\n\r\n` }]),
    expect: () => [{ status: 400, reason: /malformed_request.*the request before these bytes .* was not answered/ }],
  },
  {
    name: 'garbage-after-answered-request',
    rule: 'a valid request answered, then bytes the parser rejects on the same connection: 200, then 400',
    play: (t) =>
      connection(t, [
        { write: `${head(t, JSON_TYPE, { 'Content-Length': 2 })}{}`, pauseMs: 200 },
        { write: 'garbage\r\n\r\n' },
      ]),
    expect: () => [
      { status: 200, reason: /^\{\}$/ },
      { status: 400, reason: /malformed_request: the bytes are not an HTTP\/1\.1 request/ },
    ],
  },
  {
    name: 'pipelined-unfinished-after-valid-request',
    rule: 'a valid request then a second one whose body never comes: 200, then 408 at http.requestTimeoutMs',
    play: (t, held) =>
      Promise.all([
        connection(
          t,
          [
            {
              write:
                `${head(t, JSON_TYPE, { 'Content-Length': 2 })}{}` +
                head(t, JSON_TYPE, { 'Content-Length': 100 }) +
                '{',
            },
          ],
          { after: 'keep' },
        ),
        new Promise((r) => setTimeout(r, 100)).then(held),
      ]).then(([seen]) => seen),
    expect: () => [
      { status: 200, reason: /^\{\}$/ },
      { status: 408, reason: TIMEOUT },
    ],
  },
  {
    name: 'slow-headers',
    rule: 'slowloris: headers a byte at a time, never finished: 408 at http.headersTimeoutMs, no slot ever taken',
    play: (t, held) => {
      const bytes = head(t, JSON_TYPE, { 'Content-Length': 2 });
      const pause = Math.max(50, Math.floor(t.limits.headersTimeoutMs / 20));
      const steps: WireStep[] = [];
      for (let i = 0; i < bytes.length - 2 && i < 1_000; i++) steps.push({ write: bytes[i], pauseMs: pause });
      return Promise.all([
        connection(t, steps, { after: 'keep' }),
        new Promise((r) => setTimeout(r, pause * 3)).then(held),
      ]).then(([seen]) => seen);
    },
    expect: () => [{ status: 408, reason: TIMEOUT }],
  },
  {
    name: 'slow-body',
    rule: 'a body a byte at a time: 408 at http.requestTimeoutMs however steadily the bytes come',
    play: (t, held) => {
      const body = jsonBody([jsonSpan()]);
      const pause = Math.max(50, Math.floor(t.limits.requestTimeoutMs / 20));
      const steps: WireStep[] = [{ write: head(t, JSON_TYPE, { 'Content-Length': body.length }) }];
      for (let i = 0; i < body.length; i++) steps.push({ write: body[i], pauseMs: pause });
      return Promise.all([
        connection(t, steps, { after: 'keep' }),
        new Promise((r) => setTimeout(r, pause * 3)).then(held),
      ]).then(([seen]) => seen);
    },
    expect: () => [{ status: 408, reason: TIMEOUT }],
  },
  {
    name: 'slow-bodies-past-tenant-share',
    rule: 'one credential parks unfinished bodies on more slots than its share: the extra one is 429, the others 408',
    play: (t, held) => unfinished(t, t.limits.tenantRequests + 1, 100, held),
    expect: (t) =>
      [
        ...Array.from({ length: t.limits.tenantRequests }, () => ({ status: 408, reason: TIMEOUT })),
        { status: 429, reason: new RegExp(`already has ${t.limits.tenantRequests} requests in flight`) },
      ].sort(byStatus),
  },
  {
    name: 'json-both-spellings-envelope',
    rule: 'resourceSpans and resource_spans in one body: 400 naming both, never 200 with one of them dropped',
    play: (t) => {
      const body = JSON.stringify({
        resourceSpans: [{ scopeSpans: [{ spans: [jsonSpan()] }] }],
        resource_spans: [{ scope_spans: [{ spans: [jsonSpan()] }] }],
      });
      return connection(t, [{ write: head(t, JSON_TYPE, { 'Content-Length': body.length }) + body }], {
        after: 'response',
      });
    },
    expect: () => [{ status: 400, reason: /resourceSpans and resource_spans/ }],
  },
  {
    name: 'json-both-spellings-span',
    rule: 'a span spelling traceId and trace_id: the span is rejected in partial_success, the others kept',
    play: (t) => {
      const twice = jsonSpan({ trace_id: randomBytes(16).toString('hex') });
      const body = jsonBody([twice, jsonSpan()]);
      return connection(t, [{ write: head(t, JSON_TYPE, { 'Content-Length': body.length }) + body }], {
        after: 'response',
      });
    },
    expect: () => [{ status: 200, reason: /"rejectedSpans":"1".*traceId and trace_id/ }],
  },
  {
    name: 'json-deep-nesting',
    rule: 'key-value lists nested 32 levels in JSON are kept and 33 rejected in partial_success, as in protobuf',
    play: (t) => {
      const deep = (levels: number) => jsonSpan({ attributes: [{ key: 'deep', value: nestedJson(levels) }] });
      const body = jsonBody([deep(32), deep(33)]);
      return connection(t, [{ write: head(t, JSON_TYPE, { 'Content-Length': body.length }) + body }], {
        after: 'response',
      });
    },
    expect: () => [{ status: 200, reason: /"rejectedSpans":"1","errorMessage":"rejected 1 of 2 spans: .*nest/ }],
  },
  {
    name: 'json-nesting-far-past-the-limit',
    rule: 'JSON arrays 20,000 deep: a 400 naming the depth, never a crash or a stack overflow',
    play: (t) => {
      const body = `{"resourceSpans":${'['.repeat(20_000)}${']'.repeat(20_000)}}`;
      return connection(t, [{ write: head(t, JSON_TYPE, { 'Content-Length': body.length }) + body }], {
        after: 'response',
      });
    },
    expect: () => [{ status: 400, reason: NOT_OTLP }],
  },
  {
    name: 'protobuf-deep-nesting',
    rule: 'key-value lists nested 32 levels in protobuf are kept and 33 rejected in partial_success, as in JSON',
    play: (t) => {
      const deep = (levels: number) => span({ attributes: [{ key: 'deep', value: nestedValue(levels, true) }] });
      const body = protobufBody(request([deep(32), deep(33)]));
      return connection(t, [{ write: head(t, PROTOBUF, { 'Content-Length': body.length }) }, { write: body }], {
        after: 'response',
      });
    },
    // The ExportTraceServiceResponse's partial_success message, read in the protobuf bytes.
    expect: () => [{ status: 200, reason: /rejected 1 of 2 spans: .*nested deeper than 32/ }],
  },
  {
    name: 'protobuf-nesting-far-past-the-limit',
    rule: 'a protobuf AnyValue 3,000 levels deep: 400 or the span rejected, never a crash or a stack overflow',
    play: (t) => {
      const body = deepAttributeBody(3_000);
      return connection(t, [{ write: head(t, PROTOBUF, { 'Content-Length': body.length }) }, { write: body }], {
        after: 'response',
      });
    },
    expect: () => [{ status: 400, reason: /./ }],
  },
];

function byStatus(a: { status: number }, b: { status: number }): number {
  return a.status - b.status;
}
