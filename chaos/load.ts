/**
 * The steady OTLP/HTTP protobuf load: requests of one trace of `spansPerRequest` tool spans, paced to `rate` spans/s,
 * every span id unique and recorded, taking the credentials of `tokens` in turn. A request counts as acknowledged only on HTTP 200; 429/503 are refused with
 * retry and sent again after Retry-After, as an OTLP exporter does; connection errors and timeouts are retried too.
 * A share of the 200s (`lostAnswers`) is treated as never received: the request is sent again, as an exporter does
 * when its connection drops or its timeout fires after the collector stored the spans.
 */
import { Agent, request as httpRequest } from 'node:http';
import { encodeExportTraceServiceRequest } from '../platform/otlp/index.ts';
import { mulberry32 } from '../platform/seeded-random.ts';
import { syntheticRequest } from '../testkit/ingest.ts';

export interface LoadOptions {
  url: string;
  /** Bearer tokens the requests take in turn (one per tenant of the load). */
  tokens: string[];
  /** Tool spans per second. */
  rate: number;
  spansPerRequest: number;
  /** Distinguishes runs: request seeds are `seed * 1e7 + n`. */
  seed: number;
  /** Requests in flight at most for the steady load (a burst bypasses it). */
  maxInFlight?: number;
  requestTimeoutMs?: number;
  /** Share of the 200s the client acts as if it never got (0 to 1; seeded): it sends the request again. */
  lostAnswers?: number;
}

export interface PendingRequest {
  seed: number;
  spanIds: string[];
  /** Dropped once acknowledged: a long run at thousands of spans/s would otherwise hold every body sent. */
  body: Buffer | undefined;
  token: string;
  attempts: number;
  /** performance.now() of the 200, once acknowledged. */
  ackedAt?: number;
}

export interface LoadCounters {
  requestsSent: number;
  spansSent: number;
  attempts: number;
  requestsAcked: number;
  spansAcked: number;
  refused429: number;
  refused503: number;
  /** Spans carried by refused (429/503) attempts. */
  spansRefused: number;
  connectionErrors: number;
  timeouts: number;
  /** Any other status: a request the collector rejected for good (must stay 0: the load is valid). */
  rejected: number;
  rejectedStatuses: Record<string, number>;
  /** 200s treated as lost (`lostAnswers`): each one puts the same request into Kafka once more. */
  answersLost: number;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export class LoadGenerator {
  readonly requests: PendingRequest[] = [];
  readonly counters: LoadCounters = {
    requestsSent: 0,
    spansSent: 0,
    attempts: 0,
    requestsAcked: 0,
    spansAcked: 0,
    refused429: 0,
    refused503: 0,
    spansRefused: 0,
    connectionErrors: 0,
    timeouts: 0,
    rejected: 0,
    rejectedStatuses: {},
    answersLost: 0,
  };
  private readonly agent = new Agent({ keepAlive: true, maxSockets: 256 });
  private readonly retryTimers = new Set<NodeJS.Timeout>();
  private inFlight = 0;
  private running = false;
  private loop: Promise<void> | undefined;
  private readonly startMs = Date.now();
  private readonly rand: () => number;

  constructor(private readonly o: LoadOptions) {
    this.rand = mulberry32(o.seed ^ 0x5eed);
  }

  /** Requests not acknowledged yet (waiting for a retry or in flight). */
  get unacknowledged(): number {
    return this.counters.requestsSent - this.counters.requestsAcked - this.counters.rejected;
  }

  private create(): PendingRequest {
    const seed = this.o.seed * 10_000_000 + this.requests.length;
    const req = syntheticRequest({
      tenant: 'ignored-the-collector-stamps-it',
      toolSpans: this.o.spansPerRequest,
      seed,
      startMs: this.startMs,
    });
    const spanIds: string[] = [];
    for (const rs of req.resourceSpans)
      for (const ss of rs.scopeSpans)
        for (const s of ss.spans) {
          // Tool spans only (the parent 'agent turn' span goes to another table): those rows are counted.
          if (s.parentSpanId?.length && s.spanId) spanIds.push(Buffer.from(s.spanId).toString('hex'));
        }
    const token = this.o.tokens[this.requests.length % this.o.tokens.length] ?? '';
    const body = Buffer.from(encodeExportTraceServiceRequest(req));
    const p: PendingRequest = { seed, spanIds, body, token, attempts: 0 };
    this.requests.push(p);
    this.counters.requestsSent++;
    this.counters.spansSent += spanIds.length;
    return p;
  }

  /** Paces new requests until `stop()`, catching up after a stall instead of drifting. */
  start(): void {
    this.running = true;
    const perMs = this.o.rate / this.o.spansPerRequest / 1000;
    const t0 = performance.now();
    const max = this.o.maxInFlight ?? 64;
    // Counted apart from burst requests, so a burst does not make the steady load pause to "catch down".
    let paced = 0;
    this.loop = (async () => {
      while (this.running) {
        const due = Math.floor((performance.now() - t0) * perMs);
        while (paced < due && this.inFlight < max) {
          paced++;
          void this.send(this.create());
        }
        await sleep(5);
      }
    })();
  }

  async stop(): Promise<void> {
    this.running = false;
    await this.loop;
  }

  /**
   * Saturates the collector: `concurrency` requests kept in flight for `durationMs` (each answer, whatever it is,
   * is followed at once by a new request), well past the collector's admission limit. Refused requests are retried
   * later like the others.
   */
  async burst(concurrency: number, durationMs: number): Promise<{ requests: number; status429: number }> {
    const before = { sent: this.counters.requestsSent, r429: this.counters.refused429 };
    const end = performance.now() + durationMs;
    const worker = async () => {
      while (performance.now() < end) await this.send(this.create());
    };
    await Promise.all(Array.from({ length: concurrency }, worker));
    return { requests: this.counters.requestsSent - before.sent, status429: this.counters.refused429 - before.r429 };
  }

  /** Waits until every request is acknowledged (retries keep going) or the deadline passes. */
  async drain(timeoutMs: number): Promise<boolean> {
    const deadline = Date.now() + timeoutMs;
    while (this.unacknowledged > 0 && Date.now() < deadline) await sleep(200);
    return this.unacknowledged === 0;
  }

  close(): void {
    this.running = false;
    for (const t of this.retryTimers) clearTimeout(t);
    this.retryTimers.clear();
    this.agent.destroy();
  }

  private retryLater(p: PendingRequest, ms: number): void {
    const t = setTimeout(
      () => {
        this.retryTimers.delete(t);
        void this.send(p);
      },
      ms + Math.random() * 500,
    );
    this.retryTimers.add(t);
  }

  private async send(p: PendingRequest): Promise<void> {
    const body = p.body;
    if (!body) return; // acknowledged meanwhile (a stray retry timer)
    p.attempts++;
    this.counters.attempts++;
    this.inFlight++;
    let outcome: { status: number; retryAfterS?: number } | { error: 'timeout' | 'connection' };
    try {
      outcome = await this.post(body, p.token);
    } finally {
      this.inFlight--;
    }
    if ('error' in outcome) {
      if (outcome.error === 'timeout') this.counters.timeouts++;
      else this.counters.connectionErrors++;
      this.retryLater(p, 1_000);
      return;
    }
    const { status } = outcome;
    if (status === 200 && this.rand() < (this.o.lostAnswers ?? 0)) {
      // The collector stored the spans but the client never heard: it sends them again.
      this.counters.answersLost++;
      this.retryLater(p, 1_000);
    } else if (status === 200) {
      p.ackedAt = performance.now();
      p.body = undefined;
      this.counters.requestsAcked++;
      this.counters.spansAcked += p.spanIds.length;
    } else if (status === 429 || status === 503) {
      if (status === 429) this.counters.refused429++;
      else this.counters.refused503++;
      this.counters.spansRefused += p.spanIds.length;
      // Retry-After honoured, capped so a soak does not idle (exporters cap their backoff too).
      this.retryLater(p, Math.min(outcome.retryAfterS ?? 1, 5) * 1_000);
    } else {
      this.counters.rejected++;
      this.counters.rejectedStatuses[status] = (this.counters.rejectedStatuses[status] ?? 0) + 1;
    }
  }

  private post(
    body: Buffer,
    token: string,
  ): Promise<{ status: number; retryAfterS?: number } | { error: 'timeout' | 'connection' }> {
    return new Promise((resolve) => {
      const u = new URL(this.o.url);
      const req = httpRequest(
        {
          agent: this.agent,
          host: u.hostname,
          port: u.port,
          path: u.pathname,
          method: 'POST',
          headers: {
            'content-type': 'application/x-protobuf',
            'content-length': body.length,
            authorization: `Bearer ${token}`,
          },
          timeout: this.o.requestTimeoutMs ?? 15_000,
        },
        (res) => {
          res.resume();
          res.once('end', () => {
            const ra = Number(res.headers['retry-after']);
            resolve({ status: res.statusCode ?? 0, ...(Number.isFinite(ra) && ra > 0 ? { retryAfterS: ra } : {}) });
          });
          res.once('error', () => resolve({ error: 'connection' }));
        },
      );
      req.once('timeout', () => {
        req.destroy();
        resolve({ error: 'timeout' });
      });
      req.once('error', () => resolve({ error: 'connection' }));
      req.end(body);
    });
  }
}
