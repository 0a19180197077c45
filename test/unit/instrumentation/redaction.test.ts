import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { test } from 'node:test';
import { createRedactor } from '../../../instrumentation/redaction.ts';

const redactor = createRedactor({ maxChars: 200 });
const value = {
  team: 'infra',
  token: 'secret',
  filter: { owner: 'bob', since: '2025' },
  items: [{ id: 1, e: 'x' }, { id: 2 }],
};

test('records nothing when no field is opted in', () => {
  assert.equal(redactor.project(value, {}), undefined);
});

test('records only the opted-in fields, raw or hashed', () => {
  const out = JSON.parse(redactor.project(value, { team: 'raw', token: 'hash', 'filter.owner': 'raw' }) ?? '');
  assert.deepEqual(out, {
    team: 'infra',
    token: `sha256:${createHash('sha256').update('secret').digest('hex')}`,
    filter: { owner: 'bob' },
  });
});

test('walks arrays with *', () => {
  const out = JSON.parse(redactor.project(value, { 'items.*.id': 'raw' }) ?? '');
  assert.deepEqual(out, { items: [{ id: 1 }, { id: 2 }] });
});

test('a keyed redactor hashes with HMAC, so that a dictionary cannot reverse low-entropy values', () => {
  const keyed = createRedactor({ maxChars: 200, hashKey: 'k'.repeat(16) });
  const out = JSON.parse(keyed.project(value, { token: 'hash' }) ?? '');
  assert.match(out.token, /^hmac-sha256:[0-9a-f]{64}$/);
  assert.notEqual(out.token.slice(12), createHash('sha256').update('secret').digest('hex'));
});

test('an unknown policy records nothing rather than the raw value', () => {
  assert.equal(redactor.project(value, { token: 'plain' as 'raw' }), undefined);
});

test('missing fields are skipped and long values are cut visibly', () => {
  assert.equal(redactor.project(value, { nope: 'raw' }), undefined);
  const short = createRedactor({ maxChars: 10 });
  assert.equal(short.project({ a: 'x'.repeat(50) }, { a: 'raw' }), `${'{"a":"xxxxx'.slice(0, 10)}…`);
});
