/**
 * The reconstruction over HTTP, as a fastify plugin. Every route declares its request and response schemas; ids
 * are validated by pattern (ids.ts) before any handler runs, so a malformed id or an injection attempt gets a 400
 * and never reaches ClickHouse; the values that pass are bound as query parameters anyway.
 *
 *   GET /v1/reconstruct/sessions/:session[?tenant=]     -> Reconstruction (JSON) or ?format=html
 *   GET /v1/reconstruct/traces/:trace[?tenant=]         -> Reconstruction (JSON) or ?format=html
 *   GET /v1/reconstruct/findings/:fingerprint           -> Reconstruction (JSON) or ?format=html
 *   GET /v1/reconstruct/schema                          -> the JSON Schema of a Reconstruction (public)
 *
 * Tenant isolation: the plugin must be registered after platform/auth/api-auth.ts, which authenticates every
 * non-public route and sets `request.callerTenant`. Every read is bound to that tenant; `?tenant=` only restates
 * it (any other value was refused with 403 before this code runs). A finding of another tenant is a 404, the same
 * as a finding that does not exist, so fingerprints of other tenants cannot be probed.
 */
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { FINGERPRINT_PATTERN, SESSION_ID_PATTERN, TENANT_PATTERN, TRACE_ID_PATTERN } from '../contract/index.ts';
import { AuthErrorBody } from '../platform/auth/api-auth.ts';
import type { ClickHouseClient } from '../platform/clickhouse.ts';
import { errorBodySchema } from '../platform/http/error-body.ts';
import { type SchemaConfig, SchemaConfigSchema } from '../schema/config.ts';
import { type FindingResolver, findingResolverFor, reconstructFinding } from './finding.ts';
import { NotFoundError, type ReconstructOptions, reconstructSession, reconstructTrace } from './reconstruct.ts';
import { REPORT_CSP, renderReconstructionHtml } from './render-html.ts';
import { type Reconstruction, reconstructionJsonSchema } from './timeline.ts';

export interface ReconstructApiOptions {
  ch: ClickHouseClient;
  schema: SchemaConfig;
  /** Route prefix (default `/v1/reconstruct`). */
  prefix?: string;
  /** Most calls loaded per session (default 5,000). */
  maxCalls?: number;
  /** Finding fingerprint -> session; default reads the alerts' findings table. */
  findings?: FindingResolver;
  now?: () => Date;
}

export const DEFAULT_RECONSTRUCT_PREFIX = '/v1/reconstruct';

export const API_ERROR_CODES = ['INVALID_REQUEST', 'NOT_FOUND', 'INTERNAL'] as const;

const ErrorBody = errorBodySchema(API_ERROR_CODES);

const TenantQuery = {
  type: 'object',
  additionalProperties: false,
  properties: {
    tenant: { type: 'string', pattern: TENANT_PATTERN },
    format: { type: 'string', enum: ['json', 'html'], default: 'json' },
  },
} as const;

const FormatQuery = {
  type: 'object',
  additionalProperties: false,
  properties: { format: { type: 'string', enum: ['json', 'html'], default: 'json' } },
} as const;

function params(name: string, pattern: string) {
  return {
    type: 'object',
    required: [name],
    additionalProperties: false,
    properties: { [name]: { type: 'string', pattern } },
  } as const;
}

/** Typed error bodies for every failure, including fastify's own schema validation errors. */
function errorHandler(error: FastifyError, request: FastifyRequest, reply: FastifyReply): void {
  if (error.validation) {
    void reply.code(400).send({ error: { code: 'INVALID_REQUEST', message: error.message } });
    return;
  }
  if (error instanceof NotFoundError) {
    void reply.code(404).send({ error: { code: 'NOT_FOUND', message: error.message } });
    return;
  }
  request.log.error({ err: error }, 'reconstruction failed');
  void reply.code(500).send({ error: { code: 'INTERNAL', message: 'reconstruction failed; see the server log' } });
}

function assertOptions(o: ReconstructApiOptions): void {
  const problems: string[] = [];
  if (!o || typeof o.ch?.query !== 'function') problems.push('ch must be a ClickHouse client');
  const s = SchemaConfigSchema.safeParse(o?.schema);
  if (!s.success) problems.push(`schema: ${s.error.issues.map((i) => `${i.path.join('.')} ${i.message}`).join('; ')}`);
  if (o?.maxCalls !== undefined && (!Number.isInteger(o.maxCalls) || o.maxCalls < 1))
    problems.push('maxCalls must be a positive integer');
  if (o?.prefix !== undefined && !/^\/[A-Za-z0-9/_-]*$/.test(o.prefix)) problems.push('prefix must be a path');
  if (problems.length) throw new Error(`tooltrail reconstruct api: ${problems.join('; ')}`);
}

async function reconstructApi(app: FastifyInstance, options: ReconstructApiOptions): Promise<void> {
  assertOptions(options);
  const { ch, schema } = options;
  const prefix = options.prefix ?? DEFAULT_RECONSTRUCT_PREFIX;
  const opts: ReconstructOptions = {
    ...(options.maxCalls !== undefined ? { maxCalls: options.maxCalls } : {}),
    ...(options.now ? { now: options.now } : {}),
  };
  const findings = options.findings ?? findingResolverFor(ch, schema);
  // Only the caller's tenant's findings exist for the caller.
  const findingsOf =
    (tenant: string): FindingResolver =>
    async (fingerprint) => {
      const f = await findings(fingerprint);
      return f && f.tenant === tenant ? f : null;
    };
  const tenantOf = (req: FastifyRequest) => {
    if (!req.callerTenant) throw new Error('reconstruct api: no caller tenant (is the api-auth plugin registered?)');
    return req.callerTenant;
  };
  const jsonSchema = reconstructionJsonSchema();
  const response = {
    200: { description: 'Reconstruction (JSON), or its HTML report with ?format=html', ...jsonSchema },
    400: ErrorBody,
    401: AuthErrorBody,
    403: AuthErrorBody,
    404: ErrorBody,
    500: ErrorBody,
  };
  // An HTML reply is a string; fastify serializes by status code, so HTML is sent raw with its own content type.
  const send = (reply: FastifyReply, format: string, r: Reconstruction) => {
    if (format === 'html') {
      return reply
        .type('text/html; charset=utf-8')
        .header('content-security-policy', REPORT_CSP)
        .header('x-content-type-options', 'nosniff')
        .serializer((s: unknown) => String(s))
        .send(renderReconstructionHtml(r));
    }
    return reply.send(r);
  };

  app.get<{ Params: { session: string }; Querystring: { tenant?: string; format: string } }>(
    `${prefix}/sessions/:session`,
    {
      schema: { params: params('session', SESSION_ID_PATTERN), querystring: TenantQuery, response },
      errorHandler,
    },
    async (req, reply) => {
      const r = await reconstructSession(ch, schema, { session: req.params.session, tenant: tenantOf(req) }, opts);
      return send(reply, req.query.format, r);
    },
  );

  app.get<{ Params: { trace: string }; Querystring: { tenant?: string; format: string } }>(
    `${prefix}/traces/:trace`,
    {
      schema: { params: params('trace', TRACE_ID_PATTERN), querystring: TenantQuery, response },
      errorHandler,
    },
    async (req, reply) => {
      const r = await reconstructTrace(
        ch,
        schema,
        { trace: req.params.trace.toLowerCase(), tenant: tenantOf(req) },
        opts,
      );
      return send(reply, req.query.format, r);
    },
  );

  app.get<{ Params: { fingerprint: string }; Querystring: { format: string } }>(
    `${prefix}/findings/:fingerprint`,
    {
      schema: { params: params('fingerprint', FINGERPRINT_PATTERN), querystring: FormatQuery, response },
      errorHandler,
    },
    async (req, reply) => {
      const r = await reconstructFinding(
        ch,
        schema,
        findingsOf(tenantOf(req)),
        req.params.fingerprint.toLowerCase(),
        opts,
      );
      return send(reply, req.query.format, r);
    },
  );

  app.get(
    `${prefix}/schema`,
    {
      schema: { response: { 200: { type: 'object', additionalProperties: true } } },
      config: { public: true },
      errorHandler,
    },
    async () => jsonSchema,
  );
}

export const reconstructApiPlugin = fp(reconstructApi, { name: 'tooltrail-reconstruct', fastify: '5.x' });
export default reconstructApiPlugin;
