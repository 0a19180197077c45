/** Completeness read from MCP results: the contract, the shapes real servers return, else unknown (never complete). */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { readCompleteness, readListCompleteness } from '../../../mcp-proxy/completeness.ts';

const text = (t: string) => ({ content: [{ type: 'text', text: t }] });

test('the tooltrail contract in structuredContent is taken as the server states it', () => {
  const r = readCompleteness(
    {
      content: [],
      structuredContent: {
        status: 'partial',
        items: [{ id: 'a' }],
        completeness: { complete: false, reasons: [{ code: 'VISIBILITY_RESTRICTED' }], continuation: { kind: 'none' } },
        scope: { resource: 'accounts', snapshot: 's1' },
      },
    },
    undefined,
  );
  assert.equal(r.recognized, 'contract');
  assert.equal(r.result.completeness.complete, false);
  assert.deepEqual(
    r.result.completeness.reasons.map((x) => x.code),
    ['VISIBILITY_RESTRICTED'],
  );
  assert.equal(r.result.scope?.snapshot, 's1');
});

for (const [shape, value, code] of [
  ['nextCursor', { items: [1], nextCursor: 'c2' }, 'MORE_PAGES_AVAILABLE'],
  ['next_cursor', { items: [1], next_cursor: 'c2' }, 'MORE_PAGES_AVAILABLE'],
  ['nextPageToken', { items: [1], nextPageToken: 'p2' }, 'MORE_PAGES_AVAILABLE'],
  ['hasMore', { items: [1], hasMore: true }, 'MORE_PAGES_AVAILABLE'],
  ['has_more', { data: [1], has_more: true }, 'MORE_PAGES_AVAILABLE'],
  ['truncated', { items: [1], truncated: true }, 'RESULT_LIMIT_REACHED'],
  ['incomplete_results', { items: [1], incomplete_results: true }, 'TIME_BUDGET_EXCEEDED'],
] as const) {
  test(`a result carrying ${shape} is incomplete with ${code}`, () => {
    const fromStructured = readCompleteness({ content: [], structuredContent: value }, undefined);
    assert.equal(fromStructured.recognized, 'shape');
    assert.equal(fromStructured.result.completeness.complete, false);
    assert.equal(fromStructured.result.completeness.reasons[0]?.code, code);
    // Servers without structuredContent return the same JSON as their only text.
    const fromText = readCompleteness(text(JSON.stringify(value)), undefined);
    assert.equal(fromText.result.completeness.reasons[0]?.code, code);
  });
}

test('a cursor is kept as the continuation', () => {
  const r = readCompleteness({ structuredContent: { items: [], nextCursor: 'c9' } }, undefined);
  assert.deepEqual(r.result.completeness.continuation, { kind: 'next_cursor', cursor: 'c9' });
});

test('an explicit hasMore: false is complete', () => {
  const r = readCompleteness({ structuredContent: { items: [1, 2], hasMore: false } }, undefined);
  assert.equal(r.result.completeness.complete, true);
  assert.equal(r.result.items?.length, 2);
});

test('a result that says nothing is COMPLETENESS_UNKNOWN, never complete', () => {
  for (const value of [text('hello'), { structuredContent: { entities: [] } }, {}, null]) {
    const r = readCompleteness(value, undefined);
    assert.equal(r.recognized, 'unknown');
    assert.equal(r.result.completeness.complete, false);
    assert.equal(r.result.completeness.reasons[0]?.code, 'COMPLETENESS_UNKNOWN');
  }
});

test('a text result at the declared size limit was cut: RESULT_LIMIT_REACHED', () => {
  const r = readCompleteness(text('x'.repeat(100)), { textLimit: 100 });
  assert.equal(r.result.completeness.reasons[0]?.code, 'RESULT_LIMIT_REACHED');
  assert.equal(readCompleteness(text('x'.repeat(99)), { textLimit: 100 }).recognized, 'unknown');
});

test('a policy that declares the tool complete makes a result without limit signals complete, not one with them', () => {
  const policy = { complete: 'declared' as const, items: 'entities', itemId: 'name' };
  const r = readCompleteness(
    { structuredContent: { entities: [{ name: 'a' }, { name: 'b' }], relations: [] } },
    policy,
  );
  assert.equal(r.recognized, 'declared');
  assert.equal(r.result.completeness.complete, true);
  assert.deepEqual(r.result.items, [{ id: 'a' }, { id: 'b' }]);
  const cut = readCompleteness({ structuredContent: { entities: [], nextCursor: 'x' } }, policy);
  assert.equal(cut.result.completeness.complete, false);
});

test('an isError result is an error result, whatever it carries', () => {
  const r = readCompleteness({ isError: true, structuredContent: { items: [], hasMore: false } }, undefined);
  assert.equal(r.result.status, 'error');
  assert.equal(r.result.completeness.complete, false);
});

test('list calls follow nextCursor: a page with one is incomplete, the last page is complete', () => {
  const page = readListCompleteness({ tools: [{ name: 'a' }], nextCursor: '2' }, 'tools');
  assert.equal(page.result.completeness.reasons[0]?.code, 'MORE_PAGES_AVAILABLE');
  assert.equal(page.result.items?.length, 1);
  assert.equal(readListCompleteness({ resources: [] }, 'resources').result.completeness.complete, true);
});
