import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import Fastify from 'fastify';
import { MAX_PARAM_LENGTH } from '../../../cli/commands/reconstruct/api-server.ts';
import { apiAuthPlugin } from '../../../platform/auth/api-auth.ts';
import type { ClickHouseClient } from '../../../platform/clickhouse.ts';
import { reconstructApiPlugin } from '../../../reconstruct/api.ts';
import type { SchemaConfig } from '../../../schema/config.ts';

/** A ClickHouse client that records every query and answers with no rows: the handler must never reach it here. */
function spyClient() {
  const queries: { query: string; params: unknown }[] = [];
  const ch = {
    async query(args: { query: string; query_params?: unknown }) {
      queries.push({ query: args.query, params: args.query_params });
      return { json: async () => [] };
    },
  } as unknown as ClickHouseClient;
  return { ch, queries };
}

async function app() {
  const spy = spyClient();
  const f = Fastify({ routerOptions: { maxParamLength: MAX_PARAM_LENGTH } });
  // The plugin reads the caller's tenant set by the auth plugin; one tenant, as `serve-api --no-auth` serves.
  await f.register(apiAuthPlugin, { mode: 'none', tenant: 'acme' });
  await f.register(reconstructApiPlugin, { ch: spy.ch, schema: { database: 'tooltrail', retentionDays: 400 } });
  await f.ready();
  return { f, queries: spy.queries };
}

const ATTEMPTS = [
  "x' OR '1'='1",
  "sess'; DROP TABLE tool_calls; --",
  'sess%20UNION%20SELECT%201',
  '..%2F..%2Fetc%2Fpasswd',
  '%00',
  'a'.repeat(201),
  '-leading-dash',
  'sess{tenant:String}',
];

describe('reconstruction API input validation', () => {
  for (const bad of ATTEMPTS) {
    it(`rejects session id ${JSON.stringify(bad.slice(0, 40))} with 400 and runs no query`, async () => {
      const { f, queries } = await app();
      try {
        const res = await f.inject({ method: 'GET', url: `/v1/reconstruct/sessions/${bad}` });
        assert.equal(res.statusCode, 400, res.body);
        assert.equal(res.json().error.code, 'INVALID_REQUEST');
        assert.equal(queries.length, 0);
      } finally {
        await f.close();
      }
    });
  }

  it('rejects a trace id that is not 32 hex characters with 400 and runs no query', async () => {
    const { f, queries } = await app();
    try {
      for (const bad of ['abc', 'g'.repeat(32), `${'a'.repeat(32)}'--`, `${'a'.repeat(31)}%27`]) {
        const res = await f.inject({ method: 'GET', url: `/v1/reconstruct/traces/${bad}` });
        assert.equal(res.statusCode, 400, `${bad}: ${res.body}`);
      }
      assert.equal(queries.length, 0);
    } finally {
      await f.close();
    }
  });

  it('rejects a malformed tenant, fingerprint, format or unknown parameter with 400 and runs no query', async () => {
    const { f, queries } = await app();
    try {
      // A tenant other than the caller's (malformed or not) is refused earlier, with 403 (test/unit/security).
      for (const url of [
        "/v1/reconstruct/sessions/sess-1?tenant=acme'%20OR%201=1",
        '/v1/reconstruct/sessions/sess-1?tenant=',
      ]) {
        assert.equal((await f.inject({ method: 'GET', url })).statusCode, 403, url);
      }
      const urls = [
        '/v1/reconstruct/sessions/sess-1?format=pdf',
        '/v1/reconstruct/findings/not-hex',
        "/v1/reconstruct/findings/abcdef01'",
      ];
      for (const url of urls) {
        const res = await f.inject({ method: 'GET', url });
        assert.equal(res.statusCode, 400, `${url}: ${res.body}`);
      }
      assert.equal(queries.length, 0);
    } finally {
      await f.close();
    }
  });

  it('binds a valid id as a query parameter, never in the SQL text', async () => {
    const { f, queries } = await app();
    try {
      const res = await f.inject({ method: 'GET', url: '/v1/reconstruct/sessions/sess-42?tenant=acme' });
      assert.equal(res.statusCode, 404);
      assert.equal(res.json().error.code, 'NOT_FOUND');
      assert.equal(queries.length, 1);
      assert.ok(!queries[0]!.query.includes('sess-42'));
      assert.deepEqual(queries[0]!.params, { db: 'tooltrail', session: 'sess-42', tenant: 'acme' });
    } finally {
      await f.close();
    }
  });

  it('serves the JSON Schema of the reconstruction', async () => {
    const { f } = await app();
    try {
      const res = await f.inject({ method: 'GET', url: '/v1/reconstruct/schema' });
      assert.equal(res.statusCode, 200);
      assert.ok('Reconstruction' in res.json().$defs);
    } finally {
      await f.close();
    }
  });

  it('refuses bad options at registration, not at the first request', async () => {
    const f = Fastify();
    await assert.rejects(
      async () =>
        f
          .register(reconstructApiPlugin, {
            ch: spyClient().ch,
            schema: { database: 'x; DROP', retentionDays: 1 } as unknown as SchemaConfig,
          })
          .ready(),
      /schema: database/,
    );
    await f.close();
  });
});

describe('published JSON Schema', () => {
  it('reconstruct/reconstruction.schema.json is what the zod schema generates', async () => {
    const { readFileSync } = await import('node:fs');
    const { SCHEMA_FILE, schemaFileText } = await import('../../../reconstruct/write-schema.ts');
    // Compared as data: the formatter may re-wrap the file.
    assert.deepEqual(
      JSON.parse(readFileSync(SCHEMA_FILE, 'utf8')),
      JSON.parse(schemaFileText()),
      'run: node --import tsx reconstruct/write-schema.ts',
    );
  });
});
