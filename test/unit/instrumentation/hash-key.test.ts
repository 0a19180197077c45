/**
 * Keyed hashing by default: a key configured for the deployment (TOOLTRAIL_HASH_KEY, or `hashKey` in code) makes
 * every field marked `hash` an HMAC; without one the library says once, at start, that plain SHA-256 is
 * dictionary-reversible and how to set a key.
 */
import assert from 'node:assert/strict';
import { createHash, createHmac } from 'node:crypto';
import { after, afterEach, beforeEach, test } from 'node:test';
import { type DiagLogger, DiagLogLevel, diag } from '@opentelemetry/api';
import { GenAi } from '../../../contract/index.ts';
import { completeResult, createTooltrail } from '../../../instrumentation/index.ts';
import { memoryTracing } from './fixtures/otel.ts';

const tracing = memoryTracing({ batch: true });
after(() => tracing.shutdown());

const KEY = 'deployment-hash-key-0123';
const SECRET = '4921';

let warnings: string[] = [];
beforeEach(() => {
  warnings = [];
  const keep = (m: string) => warnings.push(m);
  const logger: DiagLogger = { error: keep, warn: keep, info: () => {}, debug: () => {}, verbose: () => {} };
  diag.setLogger(logger, { logLevel: DiagLogLevel.WARN, suppressOverrideMessage: true });
});
afterEach(() => diag.disable());

/** The recorded `pin` argument of one call of a tool that hashes it. */
async function recordedPin(tt: ReturnType<typeof createTooltrail>): Promise<string> {
  const tool = tt.readTool({ name: 'lookup_pin', record: { arguments: { pin: 'hash' } } }, () =>
    completeResult({ items: [], scope: { resource: 'pins' } }),
  );
  await tool(tt.session({ conversationId: 'c' }), { pin: SECRET });
  const span = (await tracing.spans()).at(-1);
  assert.ok(span);
  return JSON.parse(String(span.attributes[GenAi.TOOL_CALL_ARGUMENTS])).pin;
}

const hmac = (key: string) => `hmac-sha256:${createHmac('sha256', key).update(SECRET).digest('hex')}`;

test('a key in TOOLTRAIL_HASH_KEY makes fields marked hash an HMAC with it, with no code change', async () => {
  const tt = createTooltrail({ tracerProvider: tracing.provider, env: { TOOLTRAIL_HASH_KEY: KEY } });
  assert.equal(await recordedPin(tt), hmac(KEY));
  assert.deepEqual(warnings, [], 'a keyed deployment is not warned');
});

test('hashKey given in code wins over TOOLTRAIL_HASH_KEY', async () => {
  const tt = createTooltrail({
    tracerProvider: tracing.provider,
    hashKey: 'code-given-key-0123456',
    env: { TOOLTRAIL_HASH_KEY: KEY },
  });
  assert.equal(await recordedPin(tt), hmac('code-given-key-0123456'));
});

test('a TOOLTRAIL_HASH_KEY shorter than 16 characters fails at start, naming the variable', () => {
  assert.throws(
    () => createTooltrail({ tracerProvider: tracing.provider, env: { TOOLTRAIL_HASH_KEY: 'short' } }),
    /TOOLTRAIL_HASH_KEY: .*16/,
  );
});

test('without a key, fields marked hash warn once at start that plain SHA-256 is dictionary-reversible', async () => {
  const tt = createTooltrail({ tracerProvider: tracing.provider, env: {} });
  const second = tt.readTool({ name: 'lookup_email', record: { result: { 'items.*.email': 'hash' } } }, () => null);
  assert.equal(warnings.length, 1, 'said when the tool is defined, before any call');
  assert.match(warnings[0] ?? '', /plain SHA-256.*dictionary reverses/);
  assert.match(warnings[0] ?? '', /hashKey or TOOLTRAIL_HASH_KEY/);
  assert.equal(await recordedPin(tt), `sha256:${createHash('sha256').update(SECRET).digest('hex')}`);
  await second(tt.session({ conversationId: 'c' }), {});
  assert.equal(warnings.length, 1, 'once per instrumentation, however many tools and calls');
});

test('without a key, tools that hash nothing are not warned', () => {
  const tt = createTooltrail({ tracerProvider: tracing.provider, env: {} });
  tt.readTool({ name: 'plain', record: { arguments: { team: 'raw' } } }, () => null);
  assert.deepEqual(warnings, []);
});
