/**
 * Evidence receipts: a read's complete result carries a signed receipt; a mutation that requires evidence refuses,
 * naming the failed check, when it is missing, malformed, from an unknown key, forged, expired, incomplete, from
 * another tenant, session or resource, or when a target is outside it. On real McpServer handlers (official SDK
 * client over in-memory transports) and on a real fastify app (inject). Keys rotate.
 */
import assert from 'node:assert/strict';
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import Fastify from 'fastify';
import { z } from 'zod';
import {
  attachEvidenceReceipt,
  createReceiptIssuer,
  createReceiptVerifier,
  type KeyRing,
  RECEIPT_FIELD,
  RECEIPT_HEADER,
  RECEIPT_REFUSALS,
  type ReceiptRefusal,
  requireEvidence,
  requireEvidenceReceipt,
  withEvidenceReceipt,
} from '../../../instrumentation/evidence/index.ts';

const ed = () => {
  const { publicKey, privateKey } = generateKeyPairSync('ed25519');
  return { alg: 'Ed25519' as const, publicKey, privateKey };
};
const k1 = ed();
const k2 = ed();
const ring: KeyRing = { current: 'k1', keys: { k1 } };
let clock = Date.UTC(2026, 11, 1, 12, 0, 0);
const now = () => clock;
const issuer = createReceiptIssuer({ ring, ttlSeconds: 60, now });
const verifier = createReceiptVerifier({ ring, now });
const base = { tenant: 'acme', session: 's1', resource: 'accounts', targets: ['a1'] };
const good = () =>
  issuer.issue({ tenant: 'acme', session: 's1', resource: 'accounts', complete: true, ids: ['a1', 'a2'] });

const reasonOf = (token: string | undefined, over: Partial<typeof base> = {}): ReceiptRefusal | 'ok' => {
  const v = verifier.verify({ ...base, ...over, token });
  return v.ok ? 'ok' : v.reason;
};

test('a receipt for a complete read verifies for its tenant, session, resource and returned targets', () => {
  assert.equal(reasonOf(good()), 'ok');
  assert.equal(reasonOf(good(), { targets: ['a1', 'a2'] }), 'ok');
});

test('every refusal reason is reported by its own check', () => {
  const seen = new Set<string>();
  const check = (reason: ReceiptRefusal, token: string | undefined, over: Partial<typeof base> = {}) => {
    assert.equal(reasonOf(token, over), reason);
    seen.add(reason);
  };
  check('RECEIPT_MISSING', undefined);
  check('RECEIPT_MALFORMED', 'not-a-receipt');
  const hmac = createReceiptIssuer({
    ring: { current: 'x9', keys: { x9: { alg: 'HS256', secret: randomBytes(32) } } },
    now,
  });
  check(
    'RECEIPT_UNKNOWN_KEY',
    hmac.issue({ tenant: 'acme', session: 's1', resource: 'accounts', complete: true, ids: ['a1'] }),
  );
  const [prefix, body, sig] = good().split('.');
  const forgedBody = Buffer.from(
    JSON.stringify({ ...JSON.parse(Buffer.from(body as string, 'base64url').toString()), ids: ['a1', 'zz'] }),
  ).toString('base64url');
  check('RECEIPT_FORGED', `${prefix}.${forgedBody}.${sig}`);
  const other = createReceiptIssuer({ ring: { current: 'k1', keys: { k1: k2 } }, now });
  check(
    'RECEIPT_FORGED',
    other.issue({ tenant: 'acme', session: 's1', resource: 'accounts', complete: true, ids: ['a1'] }),
  );
  check(
    'RECEIPT_INCOMPLETE',
    issuer.issue({ tenant: 'acme', session: 's1', resource: 'accounts', complete: false, ids: ['a1'] }),
  );
  check('RECEIPT_OTHER_TENANT', good(), { tenant: 'globex' });
  check('RECEIPT_OTHER_SESSION', good(), { session: 's2' });
  check('RECEIPT_OTHER_RESOURCE', good(), { resource: 'users' });
  check('TARGET_OUTSIDE_RECEIPT', good(), { targets: ['a1', 'a9'] });
  const token = good();
  clock += 61_000;
  try {
    check('RECEIPT_EXPIRED', token);
  } finally {
    clock -= 61_000;
  }
  assert.deepEqual([...seen].sort(), [...RECEIPT_REFUSALS].sort(), 'every reason has a case here');
});

test('keys rotate: receipts of the retiring key verify while it is in the ring, not after it is removed', () => {
  const old = good();
  const rotated: KeyRing = { current: 'k2', keys: { k1, k2 } };
  const newIssuer = createReceiptIssuer({ ring: rotated, now });
  const during = createReceiptVerifier({ ring: rotated, now });
  const fresh = newIssuer.issue({ tenant: 'acme', session: 's1', resource: 'accounts', complete: true, ids: ['a1'] });
  assert.equal(during.verify({ ...base, token: old }).ok, true);
  assert.equal(during.verify({ ...base, token: fresh }).ok, true);
  const after = createReceiptVerifier({ ring: { current: 'k2', keys: { k2 } }, now });
  const v = after.verify({ ...base, token: old });
  assert.equal(v.ok ? 'ok' : v.reason, 'RECEIPT_UNKNOWN_KEY');
});

test('HMAC keys sign and verify too, and a wrong secret is a forgery', () => {
  const secret = randomBytes(32);
  const hring: KeyRing = { current: 'h1', keys: { h1: { alg: 'HS256', secret } } };
  const token = createReceiptIssuer({ ring: hring, now }).issue({
    tenant: 'acme',
    session: 's1',
    resource: 'accounts',
    complete: true,
    ids: ['a1'],
  });
  assert.equal(createReceiptVerifier({ ring: hring, now }).verify({ ...base, token }).ok, true);
  const wrong = createReceiptVerifier({
    ring: { current: 'h1', keys: { h1: { alg: 'HS256', secret: randomBytes(32) } } },
    now,
  });
  const v = wrong.verify({ ...base, token });
  assert.equal(v.ok ? 'ok' : v.reason, 'RECEIPT_FORGED');
});

/** One McpServer per client session (as Streamable HTTP servers do), sharing the key ring. */
async function mcpSession(session: string, accounts: string[], complete: boolean) {
  const removed: string[] = [];
  const server = new McpServer({ name: 'accounts', version: '1.0.0' });
  const identity = { session: () => session };
  server.registerTool(
    'list_accounts',
    { inputSchema: {}, annotations: { readOnlyHint: true } },
    withEvidenceReceipt(
      issuer,
      { ...identity, resource: 'accounts', ids: () => accounts, complete: () => complete },
      async () => ({ content: [{ type: 'text', text: accounts.join(',') }], structuredContent: { items: accounts } }),
    ),
  );
  server.registerTool(
    'delete_accounts',
    {
      inputSchema: { ids: z.array(z.string()), [RECEIPT_FIELD]: z.string().optional() },
      annotations: { destructiveHint: true },
    },
    requireEvidenceReceipt(
      verifier,
      { ...identity, resource: 'accounts', targets: (a: { ids: string[] }) => a.ids },
      async ({ ids }) => {
        removed.push(...ids);
        return { content: [{ type: 'text', text: `deleted ${ids.length}` }] };
      },
    ),
  );
  const [a, b] = InMemoryTransport.createLinkedPair();
  await server.connect(a);
  const client = new Client({ name: 'agent', version: '1.0.0' });
  await client.connect(b);
  return { client, removed, close: () => client.close() };
}

test('McpServer: a complete read hands out a receipt that lets its mutation through; without one it is refused', async () => {
  const s = await mcpSession('s1', ['a1', 'a2'], true);
  try {
    const read = await s.client.callTool({ name: 'list_accounts', arguments: {} });
    const token = (read.structuredContent as Record<string, string>)[RECEIPT_FIELD];
    assert.ok(token?.startsWith('tt1.'));
    assert.ok(
      (read.content as { text: string }[]).some((c) => c.text === `${RECEIPT_FIELD}: ${token}`),
      'the model sees it',
    );
    const refused = await s.client.callTool({ name: 'delete_accounts', arguments: { ids: ['a1'] } });
    assert.equal(refused.isError, true);
    assert.equal((refused.structuredContent as { refused: string }).refused, 'RECEIPT_MISSING');
    const outside = await s.client.callTool({
      name: 'delete_accounts',
      arguments: { ids: ['a9'], [RECEIPT_FIELD]: token },
    });
    assert.equal((outside.structuredContent as { refused: string }).refused, 'TARGET_OUTSIDE_RECEIPT');
    assert.deepEqual(s.removed, []);
    const ok = await s.client.callTool({ name: 'delete_accounts', arguments: { ids: ['a1'], [RECEIPT_FIELD]: token } });
    assert.notEqual(ok.isError, true);
    assert.deepEqual(s.removed, ['a1']);
  } finally {
    await s.close();
  }
});

test('McpServer: a receipt cannot be replayed in another session, after expiry, or from an incomplete read', async () => {
  const s1 = await mcpSession('s1', ['a1'], true);
  const s2 = await mcpSession('s2', ['a1'], true);
  const partial = await mcpSession('s3', ['a1'], false);
  try {
    const token = (
      (await s1.client.callTool({ name: 'list_accounts', arguments: {} })).structuredContent as Record<string, string>
    )[RECEIPT_FIELD];
    const replay = await s2.client.callTool({
      name: 'delete_accounts',
      arguments: { ids: ['a1'], [RECEIPT_FIELD]: token },
    });
    assert.equal((replay.structuredContent as { refused: string }).refused, 'RECEIPT_OTHER_SESSION');
    const incomplete = (
      (await partial.client.callTool({ name: 'list_accounts', arguments: {} })).structuredContent as Record<
        string,
        string
      >
    )[RECEIPT_FIELD];
    const short = await partial.client.callTool({
      name: 'delete_accounts',
      arguments: { ids: ['a1'], [RECEIPT_FIELD]: incomplete },
    });
    assert.equal((short.structuredContent as { refused: string }).refused, 'RECEIPT_INCOMPLETE');
    clock += 120_000;
    const late = await s1.client.callTool({
      name: 'delete_accounts',
      arguments: { ids: ['a1'], [RECEIPT_FIELD]: token },
    });
    clock -= 120_000;
    assert.equal((late.structuredContent as { refused: string }).refused, 'RECEIPT_EXPIRED');
    assert.deepEqual([...s1.removed, ...s2.removed, ...partial.removed], []);
  } finally {
    await Promise.all([s1.close(), s2.close(), partial.close()]);
  }
});

test('fastify: a read route attaches its receipt; a mutation route answers 409 with the failed check, else runs', async () => {
  const app = Fastify();
  const tokens: Record<string, string> = { 'tok-acme': 'acme', 'tok-globex': 'globex' };
  // Tenant from the credential, session from a header the API trusts after authentication.
  const identity = {
    tenant: (r: { headers: Record<string, string | string[] | undefined> }) =>
      tokens[String(r.headers.authorization).replace('Bearer ', '')] ?? 'none',
    session: (r: { headers: Record<string, string | string[] | undefined> }) => String(r.headers['x-session'] ?? ''),
  };
  const removed: string[] = [];
  app.get('/accounts', async (request, reply) => {
    const ids = ['a1', 'a2'];
    attachEvidenceReceipt(issuer, identity, request, reply, { resource: 'accounts', complete: true, ids });
    return { items: ids };
  });
  app.post<{ Body: { ids: string[] } }>(
    '/accounts/delete',
    {
      preHandler: requireEvidence(verifier, identity, {
        resource: 'accounts',
        targets: (r) => (r as unknown as { body: { ids: string[] } }).body.ids,
      }),
    },
    async (request) => {
      removed.push(...request.body.ids);
      return { deleted: request.body.ids.length };
    },
  );
  try {
    const who = { authorization: 'Bearer tok-acme', 'x-session': 's1' };
    const read = await app.inject({ method: 'GET', url: '/accounts', headers: who });
    const receipt = read.headers[RECEIPT_HEADER] as string;
    assert.ok(receipt.startsWith('tt1.'));
    const del = (headers: Record<string, string>, ids: string[]) =>
      app.inject({ method: 'POST', url: '/accounts/delete', headers, payload: { ids } });
    const missing = await del(who, ['a1']);
    assert.equal(missing.statusCode, 409);
    assert.equal(missing.json().code, 'RECEIPT_MISSING');
    const otherTenant = await del(
      { authorization: 'Bearer tok-globex', 'x-session': 's1', [RECEIPT_HEADER]: receipt },
      ['a1'],
    );
    assert.equal(otherTenant.statusCode, 409);
    assert.equal(otherTenant.json().code, 'RECEIPT_OTHER_TENANT');
    const outside = await del({ ...who, [RECEIPT_HEADER]: receipt }, ['zz']);
    assert.equal(outside.json().code, 'TARGET_OUTSIDE_RECEIPT');
    assert.deepEqual(removed, []);
    const ok = await del({ ...who, [RECEIPT_HEADER]: receipt }, ['a2']);
    assert.equal(ok.statusCode, 200);
    assert.deepEqual(removed, ['a2']);
  } finally {
    await app.close();
  }
});
