/**
 * `GET /v1/verify?tenant=&from=&to=` as a fastify plugin: the same report as `tooltrail verify --json`, for the
 * caller's tenant only (`request.callerTenant`, set by platform/auth/api-auth.ts, which must be registered first;
 * `?tenant=` may only restate it). Query values are validated by schema (tenant charset, ISO 8601 times, a bounded
 * range) before anything runs.
 */
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { TENANT_PATTERN } from '../contract/index.ts';
import { AuthErrorBody } from '../platform/auth/api-auth.ts';
import type { ClickHouseClient } from '../platform/clickhouse.ts';
import { errorBodySchema } from '../platform/http/error-body.ts';
import { type SchemaConfig, SchemaConfigSchema } from '../schema/config.ts';
import { verifyReportJsonSchema } from './report.ts';
import { verifyDigests, verifyRangeProblem } from './verify.ts';

export interface VerifyApiOptions {
  ch: ClickHouseClient;
  schema: SchemaConfig;
  /** Signing key to check; default none (the report says signatures were not checked). */
  key?: string;
  /** Longest range one request may verify (default 31 days). */
  maxRangeHours?: number;
  prefix?: string;
  now?: () => Date;
}

export const DEFAULT_VERIFY_PREFIX = '/v1/verify';
export const DEFAULT_MAX_RANGE_HOURS = 31 * 24;
const ISO_PATTERN = '^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}(:\\d{2}(\\.\\d{1,9})?)?(Z|[+-]\\d{2}:\\d{2})$';

const ErrorBody = errorBodySchema(['INVALID_REQUEST', 'INTERNAL']);

class RangeError400 extends Error {}

function errorHandler(error: FastifyError, request: FastifyRequest, reply: FastifyReply): void {
  if (error.validation || error instanceof RangeError400) {
    void reply.code(400).send({ error: { code: 'INVALID_REQUEST', message: error.message } });
    return;
  }
  request.log.error({ err: error }, 'verify failed');
  void reply.code(500).send({ error: { code: 'INTERNAL', message: 'verification failed; see the server log' } });
}

async function verifyApi(app: FastifyInstance, options: VerifyApiOptions): Promise<void> {
  const problems: string[] = [];
  if (!options || typeof options.ch?.query !== 'function') problems.push('ch must be a ClickHouse client');
  if (!SchemaConfigSchema.safeParse(options?.schema).success) problems.push('schema must be a valid schema config');
  const maxHours = options?.maxRangeHours ?? DEFAULT_MAX_RANGE_HOURS;
  if (!Number.isInteger(maxHours) || maxHours < 1) problems.push('maxRangeHours must be a positive integer');
  if (problems.length) throw new Error(`tooltrail verify api: ${problems.join('; ')}`);
  const prefix = options.prefix ?? DEFAULT_VERIFY_PREFIX;
  const now = options.now ?? (() => new Date());

  app.get<{ Querystring: { tenant?: string; from?: string; to?: string } }>(
    prefix,
    {
      schema: {
        querystring: {
          type: 'object',
          additionalProperties: false,
          properties: {
            tenant: { type: 'string', pattern: TENANT_PATTERN },
            from: { type: 'string', pattern: ISO_PATTERN },
            to: { type: 'string', pattern: ISO_PATTERN },
          },
        },
        response: {
          200: verifyReportJsonSchema(),
          400: ErrorBody,
          401: AuthErrorBody,
          403: AuthErrorBody,
          500: ErrorBody,
        },
      },
      errorHandler,
    },
    async (req) => {
      if (!req.callerTenant) throw new Error('verify api: no caller tenant (is the api-auth plugin registered?)');
      const to = req.query.to ? new Date(req.query.to) : now();
      const from = req.query.from ? new Date(req.query.from) : new Date(to.getTime() - 24 * 3_600_000);
      const problem = verifyRangeProblem(from, to);
      if (problem) throw new RangeError400(problem);
      if (to.getTime() - from.getTime() > maxHours * 3_600_000)
        throw new RangeError400(`range longer than ${maxHours} hours`);
      return verifyDigests(options.ch, options.schema, {
        from,
        to,
        tenant: req.callerTenant,
        ...(options.key ? { key: options.key } : {}),
      });
    },
  );
}

export const verifyApiPlugin = fp(verifyApi, { name: 'tooltrail-verify', fastify: '5.x' });
export default verifyApiPlugin;
