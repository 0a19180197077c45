/**
 * `POST /v1/traces` per the OTLP/HTTP specification: protobuf or JSON bodies, gzip/deflate, the response in the
 * request's content type, per-span validation reported through partial_success, and 200 only once the sink
 * acknowledged every accepted span. Refusals carry a google.rpc.Status body (protobuf or JSON, as the request).
 */
import type { Readable } from 'node:stream';
import type { FastifyError, FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import {
  encodeExportTraceServiceResponse,
  encodeRpcStatus,
  exportTraceServiceResponseToJson,
  RpcCode,
  rpcStatusToJson,
} from '../../platform/otlp/index.ts';
import { Admission, type AdmissionTicket } from '../admission.ts';
import { readBody } from '../body.ts';
import { type CollectorConfig, decodedReservation, tenantLimits } from '../config.ts';
import { CollectorHttpError, refuse } from '../errors.ts';
import { type FastPathDecline, prepareProtobufFast } from '../fast/prepare.ts';
import type { CollectorMetrics } from '../metrics.ts';
import { type BodyFormat, type PreparedSummary, prepare } from '../prepare.ts';
import type { PreparePool } from '../prepare-pool.ts';
import type { RejectionWindow } from '../rejection-window.ts';
import type { SenderLog } from '../sender-log.ts';
import { retryAfterOf, type SpanSink } from '../sink.ts';

export const TRACES_PATH = '/v1/traces';
const PROTOBUF = 'application/x-protobuf';
const JSON_TYPE = 'application/json';

export interface OtlpTracesOptions {
  limits: CollectorConfig['limits'];
  sink: SpanSink;
  metrics: CollectorMetrics;
  /** Decode threads, used when the sink takes per-trace messages (`writeEncoded`). */
  pool?: PreparePool;
  /** Tells the operator each rejection and flag reason, once per minute per tenant. */
  senderLog?: SenderLog;
  /** Keeps the last hour of rejections for `GET /v1/rejections` (a rejected span never reaches Kafka). */
  rejectionWindow?: RejectionWindow;
}

type Format = BodyFormat;

function formatOf(contentType: string | undefined): Format | undefined {
  const base = contentType?.split(';')[0]?.trim().toLowerCase();
  if (base === PROTOBUF) return 'protobuf';
  if (base === JSON_TYPE) return 'json';
  return undefined;
}

const rpcStatusSchema = {
  type: 'object',
  properties: { code: { type: 'integer' }, message: { type: 'string' }, details: { type: 'array' } },
};

const otlpTraces: FastifyPluginAsync<OtlpTracesOptions> = async (app, options) => {
  const { limits, sink, metrics, pool } = options;
  for (const k of ['maxWireBytes', 'maxBodyBytes', 'maxConcurrentRequests', 'maxInFlightBytes'] as const) {
    if (!(limits[k] > 0)) throw new Error(`otlp-traces: limits.${k} must be positive`);
  }
  const perTenant = tenantLimits(limits);
  const admission = new Admission({
    maxRequests: limits.maxConcurrentRequests,
    maxBytes: limits.maxInFlightBytes,
    maxRequestsPerTenant: perTenant.requests,
    maxBytesPerTenant: perTenant.bytes,
  });
  metrics.trackInFlight(admission.state);
  const tickets = new WeakMap<FastifyRequest, AdmissionTicket>();
  const release = (request: FastifyRequest): void => tickets.get(request)?.close();

  // Only these two media types reach the route; anything else is refused by Fastify with 415 (see the handler).
  app.removeAllContentTypeParsers();
  app.addContentTypeParser([PROTOBUF, JSON_TYPE], async (request: FastifyRequest, payload: Readable) => {
    const ticket = tickets.get(request);
    if (!ticket) throw new Error('otlp-traces: a body arrived for a request that was not admitted');
    const body = await readBody(request.headers, payload, limits, ticket);
    // Held until the response ends: the body, then the messages made from it, live until Kafka acknowledged.
    ticket.release(ticket.reservedBytes - body.length);
    return body;
  });

  app.addHook('onRequest', async (request, reply) => {
    const ticket = admission.enter(request.callerTenant);
    if (typeof ticket === 'string') {
      const message =
        ticket === 'tenant_concurrency_limit'
          ? `this credential already has ${perTenant.requests} requests in flight; retry later`
          : `the collector is handling ${limits.maxConcurrentRequests} requests; retry later`;
      throw refuse.throttled(ticket, message, limits.throttleRetryAfterSeconds);
    }
    tickets.set(request, ticket);
    // The response's 'close' fires on every ending (sent, client gone, parser error on the connection, timeout);
    // onResponse and onRequestAbort miss the ones where the socket dies under a request already read.
    reply.raw.once('close', () => release(request));
  });
  app.addHook('onResponse', async (request, reply) => {
    release(request);
    metrics.requests.inc({ status: String(reply.statusCode) });
    metrics.requestDuration.observe(reply.elapsedTime / 1_000);
  });

  app.setErrorHandler((error: FastifyError | CollectorHttpError, request, reply) => {
    let e: CollectorHttpError;
    if (error instanceof CollectorHttpError) e = error;
    else if (error.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE' || error.statusCode === 415) {
      e = refuse.unsupportedMediaType(
        `Content-Type must be ${PROTOBUF} or ${JSON_TYPE}, not ${request.headers['content-type'] ?? 'none'}`,
      );
    } else if (error.statusCode === 413) e = refuse.tooLarge(error.message);
    else if (error.statusCode !== undefined && error.statusCode >= 400 && error.statusCode < 500) {
      e = refuse.notOtlp(error.message);
    } else {
      request.log.error({ err: error }, 'collector: unexpected error');
      e = new CollectorHttpError(500, RpcCode.INTERNAL, 'internal', 'internal error');
    }
    if (e.statusCode === 429 || e.statusCode === 503) {
      metrics.requestsThrottled.inc({ status: String(e.statusCode), reason: e.reason });
    }
    if (e.retryAfterSeconds !== undefined) reply.header('retry-after', String(e.retryAfterSeconds));
    // The body may be unread: closing is cheaper than draining it, and frees the socket at once.
    if (e.statusCode === 413 || e.statusCode === 429) reply.header('connection', 'close');
    sendStatus(reply, formatOf(request.headers['content-type']), e.statusCode, e.rpcCode, e.message);
  });

  interface Outcome extends PreparedSummary {
    /** Resolves once the sink holds the accepted spans; absent when none was accepted. */
    written?: Promise<void>;
  }

  const count = (summary: PreparedSummary, tenant: string) => {
    for (const [reason, n] of summary.byReason) metrics.spansRejected.inc(metrics.of(tenant, { reason }), n);
    for (const [reason, n] of summary.flagsByReason) metrics.spansFlagged.inc(metrics.of(tenant, { reason }), n);
    if (summary.samples.length > 0) options.senderLog?.record(tenant, summary);
    if (summary.byReason.length > 0) options.rejectionWindow?.record(tenant, summary);
    if (summary.tenantOverrides > 0) metrics.tenantOverrides.inc(metrics.of(tenant), summary.tenantOverrides);
    if (summary.fastPathDecline) metrics.fastPathDeclines.inc({ reason: summary.fastPathDecline });
  };

  /**
   * Prepares the request (on a decode thread when the sink takes per-trace messages) and hands the accepted spans
   * to the sink. Returns only counts and a promise: nothing here may keep the decoded request alive while Kafka
   * is awaited (spans that survive a young GC are copied and promoted, which costs more than decoding them).
   */
  const accept = async (body: Buffer, format: Format, tenant: string): Promise<Outcome> => {
    if (pool && sink.writeEncoded) {
      const { messages, ...summary } = await pool.run(body, format, tenant);
      count(summary, tenant);
      return summary.accepted > 0
        ? { ...summary, written: sink.writeEncoded(messages, { tenant, spanCount: summary.accepted }) }
        : summary;
    }
    let declined: FastPathDecline | undefined;
    if (sink.writeEncoded && format === 'protobuf') {
      const fast = prepareProtobufFast(body, tenant);
      if (typeof fast === 'object') {
        const { messages, ...summary } = fast;
        count(summary, tenant);
        return { ...summary, written: sink.writeEncoded(messages, { tenant, spanCount: summary.accepted }) };
      }
      declined = fast;
    }
    const { request, encodedSpan, ...summary } = prepare(body, format, tenant);
    count(declined === undefined ? summary : { ...summary, fastPathDecline: declined }, tenant);
    if (summary.accepted === 0) return summary;
    const context = { tenant, spanCount: summary.accepted, ...(encodedSpan ? { encodedSpan } : {}) };
    return { ...summary, written: sink.write(request, context) };
  };

  app.post<{ Body: Buffer | undefined }>(
    TRACES_PATH,
    {
      config: { auth: true },
      schema: {
        response: {
          200: {
            type: 'object',
            properties: {
              partialSuccess: {
                type: 'object',
                properties: { rejectedSpans: { type: 'string' }, errorMessage: { type: 'string' } },
              },
            },
          },
          '4xx': rpcStatusSchema,
          '5xx': rpcStatusSchema,
        },
      },
    },
    async (request, reply) => {
      const format = formatOf(request.headers['content-type']);
      if (!format) {
        throw refuse.unsupportedMediaType(`Content-Type must be ${PROTOBUF} or ${JSON_TYPE}`);
      }
      const body = request.body ?? Buffer.alloc(0);
      // The decoded form is reserved before it exists, and held with the body until the response: the budget bounds
      // what decoding costs too, not only the bytes received (a protobuf request decodes to several times its size).
      const decoded = decodedReservation(body.length, limits);
      const refused = tickets.get(request)?.reserve(decoded);
      if (refused) {
        const whose = refused.startsWith('tenant_') ? "this credential's share of" : 'the collector';
        throw refuse.throttled(
          refused,
          `${whose} request memory is in use (decoding this request needs ${decoded} bytes more); retry later`,
          limits.throttleRetryAfterSeconds,
        );
      }
      // Nothing below may keep the decoded request alive while Kafka is awaited: spans that survive a young GC
      // are copied and promoted, which cost more than decoding them. `accept` returns only counts and a promise.
      request.body = undefined;
      const outcome = await accept(body, format, request.callerTenant);
      if (outcome.written) {
        try {
          await outcome.written;
        } catch (err) {
          const retryAfter = retryAfterOf(err);
          if (retryAfter !== undefined) {
            metrics.spansThrottled.inc(metrics.of(request.callerTenant, { status: '503' }), outcome.accepted);
            throw refuse.unavailable((err as Error).message, retryAfter);
          }
          throw err;
        }
        metrics.spansAccepted.inc(metrics.of(request.callerTenant), outcome.accepted);
      }
      // Spans kept flagged are a warning: rejected_spans 0 with a message, as the OTLP specification allows.
      const partialSuccess =
        outcome.rejected > 0 || outcome.errorMessage !== ''
          ? { rejectedSpans: outcome.rejected, errorMessage: outcome.errorMessage }
          : null;
      if (format === 'protobuf') {
        reply.header('content-type', PROTOBUF);
        return reply.send(Buffer.from(encodeExportTraceServiceResponse(partialSuccess ? { partialSuccess } : {})));
      }
      reply.header('content-type', JSON_TYPE);
      return exportTraceServiceResponseToJson(partialSuccess ? { partialSuccess } : {});
    },
  );
};

function sendStatus(reply: FastifyReply, format: Format | undefined, status: number, code: number, message: string) {
  reply.code(status);
  if (format === 'protobuf') {
    reply.header('content-type', PROTOBUF);
    return reply.send(Buffer.from(encodeRpcStatus({ code, message })));
  }
  reply.header('content-type', JSON_TYPE);
  return reply.send(rpcStatusToJson({ code, message }));
}

export default fp(otlpTraces, { name: 'tooltrail-collector-otlp-traces', fastify: '5.x', encapsulate: true });
