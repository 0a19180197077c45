/**
 * The hand-written envelope check is only a shortcut: whatever it accepts, zod accepts with the same output; what it
 * is unsure of goes to zod. Checked on generated envelopes, mostly well-formed, with damaged fields mixed in.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { REASON_CODES, ToolResultRuntimeSchema, WARNING_CODES } from '../../../contract/index.ts';
import { fastParseToolResult } from '../../../instrumentation/envelope-fast-path.ts';
import {
  collectAllPages,
  completeResult,
  errorResult,
  interpretToolResult,
  partialResult,
  warning,
} from '../../../instrumentation/index.ts';

const RUNS = 1500;

const text = fc.string({ minLength: 1, maxLength: 4 });
const opt = <T>(arb: fc.Arbitrary<T>) => fc.option(arb, { nil: undefined });
/** Drops the keys whose value is undefined: the valid envelopes leave optional fields out. */
const clean = (o: Record<string, unknown>) => Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined));

const reason = fc
  .record({
    code: fc.constantFrom(...REASON_CODES),
    message: opt(fc.string({ maxLength: 4 })),
    source: opt(text),
    limit: opt(fc.nat(5)),
  })
  .map(clean);
const warningArb = fc.record({
  code: fc.constantFrom(...WARNING_CODES),
  message: fc.string({ maxLength: 4 }),
  source: text,
});
const continuation = fc.oneof(
  fc.constant({ kind: 'none' }),
  fc.record({ kind: fc.constant('next_cursor'), cursor: text }),
  fc.record({ kind: fc.constant('retry_after'), after_seconds: fc.nat(9), cursor: opt(text) }).map(clean),
  fc.record({ kind: fc.constant('narrow_query'), hint: opt(fc.string({ maxLength: 4 })) }).map(clean),
  fc
    .record({ kind: fc.constant('retry_with_deadline'), minimum_seconds: opt(fc.integer({ min: 1, max: 9 })) })
    .map(clean),
);
const common = {
  warnings: opt(fc.array(warningArb, { maxLength: 2 })),
  contract_version: opt(text),
  items: opt(fc.array(fc.record({ id: fc.string() }), { maxLength: 3 })),
  data: opt(fc.jsonValue({ maxDepth: 1 })),
  scope: opt(fc.record({ resource: text, visibility: opt(text), snapshot: opt(text) }).map(clean)),
  pagination: opt(
    fc
      .record({ pages: fc.nat(5), short_pages: fc.nat(5), requested_page_size: opt(fc.integer({ min: 1, max: 9 })) })
      .map(clean),
  ),
};
const valid = fc
  .oneof(
    fc.record({
      status: fc.constant('complete'),
      completeness: fc
        .record({
          complete: fc.constant(true),
          reasons: opt(fc.constant([])),
          continuation: opt(fc.constant({ kind: 'none' })),
        })
        .map(clean),
      ...common,
    }),
    fc.record({
      status: fc.constant('partial'),
      completeness: fc
        .record({
          complete: fc.constant(false),
          reasons: fc.array(reason, { minLength: 1, maxLength: 3 }),
          continuation: opt(continuation),
        })
        .map(clean),
      ...common,
    }),
    fc.record({
      status: fc.constant('error'),
      completeness: fc
        .record({
          complete: fc.constant(false),
          reasons: opt(fc.array(reason, { maxLength: 2 })),
          continuation: opt(continuation),
        })
        .map(clean),
      error: fc.record({ type: text, message: fc.string({ maxLength: 4 }) }),
      ...common,
    }),
  )
  .map(clean);

/** Where a damage lands (created when missing), and what it puts there. */
const PATHS = [
  'status',
  'completeness',
  'completeness.complete',
  'completeness.reasons',
  'completeness.reasons.0',
  'completeness.reasons.0.code',
  'completeness.reasons.0.message',
  'completeness.reasons.0.source',
  'completeness.reasons.0.limit',
  'completeness.continuation',
  'completeness.continuation.kind',
  'completeness.continuation.cursor',
  'completeness.continuation.after_seconds',
  'completeness.continuation.hint',
  'completeness.continuation.minimum_seconds',
  'warnings',
  'warnings.0',
  'warnings.0.code',
  'warnings.0.message',
  'warnings.0.source',
  'error',
  'error.type',
  'error.message',
  'scope',
  'scope.resource',
  'scope.visibility',
  'scope.snapshot',
  'pagination',
  'pagination.pages',
  'pagination.short_pages',
  'pagination.requested_page_size',
  'items',
  'data',
  'contract_version',
  'unknown_key',
];
const junk = fc.oneof(
  fc.constantFrom(null, undefined, true, false, [], {}, '', 'x', 'none', 'complete', 'partial', 'RATE_LIMITED'),
  fc.constantFrom(0, -1, 1, 1.5, -0, Number.NaN, Number.POSITIVE_INFINITY, 2 ** 60),
  fc.constantFrom([{ code: 'RATE_LIMITED' }], [{ code: 'STALE_INDEX', message: '', source: '' }], { kind: 'none' }),
);
const damage = fc.record({ path: fc.constantFrom(...PATHS), value: junk, remove: fc.boolean() });

function damaged(value: Record<string, unknown>, damages: { path: string; value: unknown; remove: boolean }[]) {
  const copy = structuredClone(value);
  for (const d of damages) {
    const parts = d.path.split('.');
    let at: unknown = copy;
    for (const p of parts.slice(0, -1)) {
      if (typeof at !== 'object' || at === null) break;
      at = (at as Record<string, unknown>)[p];
    }
    if (typeof at !== 'object' || at === null) continue;
    const last = parts.at(-1) ?? '';
    if (d.remove) delete (at as Record<string, unknown>)[last];
    else (at as Record<string, unknown>)[last] = d.value;
  }
  return copy;
}

const envelope = fc.oneof(
  valid,
  fc.tuple(valid, fc.array(damage, { minLength: 1, maxLength: 2 })).map(([v, ds]) => damaged(v, ds)),
);

test('whatever the fast envelope check accepts, zod accepts with the same output', () => {
  let accepted = 0;
  let zodOnly = 0;
  fc.assert(
    fc.property(envelope, (value) => {
      const fast = fastParseToolResult(value);
      const parsed = ToolResultRuntimeSchema.safeParse(value);
      if (fast === undefined) {
        if (parsed.success) zodOnly += 1;
        return;
      }
      accepted += 1;
      assert.ok(parsed.success, `zod rejects what the fast path accepted: ${JSON.stringify(value)}`);
      assert.deepStrictEqual(fast, parsed.data);
    }),
    { numRuns: RUNS, seed: 20251130 },
  );
  // Not vacuous: many generated envelopes are valid and took the fast path, and few valid ones were left to zod.
  assert.ok(accepted > RUNS / 3, `only ${accepted} of ${RUNS} envelopes took the fast path`);
  assert.ok(zodOnly < accepted / 5, `the fast path left ${zodOnly} valid envelopes to zod (accepted ${accepted})`);
});

/** Envelopes with every optional field present, one per status, for the exhaustive single-damage check. */
const FULL = [
  {
    status: 'complete',
    completeness: { complete: true, reasons: [], continuation: { kind: 'none' } },
    warnings: [{ code: 'STALE_INDEX', message: 'm', source: 's' }],
    contract_version: '1.1.0',
    items: [{ id: 'a' }],
    data: { x: 1 },
    scope: { resource: 'r', visibility: 'v', snapshot: 's' },
    pagination: { pages: 2, short_pages: 0, requested_page_size: 5 },
  },
  {
    status: 'partial',
    completeness: {
      complete: false,
      reasons: [{ code: 'RATE_LIMITED', message: 'm', source: 's', limit: 3 }],
      continuation: { kind: 'retry_after', after_seconds: 2, cursor: 'c' },
    },
    warnings: [{ code: 'STALE_INDEX', message: 'm', source: 's' }],
    items: [],
    scope: { resource: 'r', visibility: 'v', snapshot: 's' },
  },
  {
    status: 'error',
    completeness: {
      complete: false,
      reasons: [{ code: 'SOURCE_UNAVAILABLE' }],
      continuation: { kind: 'retry_with_deadline', minimum_seconds: 3 },
    },
    error: { type: 't', message: 'm' },
    pagination: { pages: 0, short_pages: 0 },
  },
];
const CONTINUATIONS = [
  { kind: 'next_cursor', cursor: 'c' },
  { kind: 'narrow_query', hint: 'h' },
  { kind: 'retry_with_deadline' },
  { kind: 'none' },
];
const JUNK: unknown[] = [
  undefined,
  null,
  true,
  '',
  'x',
  0,
  -1,
  1,
  1.5,
  -0,
  Number.NaN,
  Number.POSITIVE_INFINITY,
  2 ** 60,
  [],
  {},
];

test('every single damage to a full envelope is judged as zod judges it', () => {
  const bases = [
    ...FULL,
    ...CONTINUATIONS.map((continuation) => ({
      status: 'partial',
      completeness: { complete: false, reasons: [{ code: 'MORE_PAGES_AVAILABLE' }], continuation },
    })),
  ];
  let cases = 0;
  for (const base of bases) {
    for (const path of PATHS) {
      for (const d of [
        { path, value: undefined, remove: true },
        ...JUNK.map((value) => ({ path, value, remove: false })),
      ]) {
        const value = damaged(base, [d]);
        const fast = fastParseToolResult(value);
        const parsed = ToolResultRuntimeSchema.safeParse(value);
        if (fast !== undefined) {
          assert.ok(parsed.success, `zod rejects what the fast path accepted: ${path} = ${String(d.value)}`);
          assert.deepStrictEqual(fast, parsed.data);
        }
        cases += 1;
      }
    }
  }
  assert.ok(cases > 3000);
});

test('the results of the builders and of the all-pages collector take the fast path', async () => {
  const scope = { resource: 'service_accounts', visibility: 'readable', snapshot: 's-1' };
  const pages = await collectAllPages({
    fetchPage: async () => completeResult({ items: [{ id: 'a' }], scope }),
    pageSize: 10,
    itemId: (x: { id: string }) => x.id,
  });
  const samples = [
    completeResult({ items: [], scope }),
    completeResult({ data: { id: 'x' } }),
    partialResult({
      items: [{ id: 'a' }],
      reasons: [{ code: 'RESULT_LIMIT_REACHED', message: 'stopped at 1', limit: 1, source: 'api' }],
      continuation: { kind: 'retry_after', after_seconds: 2, cursor: 'c' },
      scope,
      warnings: [warning('STALE_INDEX', 'idx', 'old')],
    }),
    partialResult({ items: [], reasons: ['TIME_BUDGET_EXCEEDED'], continuation: { kind: 'retry_with_deadline' } }),
    errorResult({ type: 'upstream_timeout', message: 'no answer', reasons: ['SOURCE_UNAVAILABLE'] }),
    pages,
  ];
  for (const value of samples) {
    const fast = fastParseToolResult(value);
    assert.ok(fast, JSON.stringify(value));
    assert.deepStrictEqual(fast, ToolResultRuntimeSchema.parse(value));
    assert.equal(interpretToolResult(value).recognized, 'contract');
  }
});

test('the fast path copies what it validated: changing the tool value afterwards does not change the result', () => {
  const value = partialResult({
    items: [{ id: 'a' }],
    reasons: ['MORE_PAGES_AVAILABLE'],
    continuation: { kind: 'next_cursor', cursor: 'c-2' },
    scope: { resource: 'r', snapshot: 's-1' },
  });
  const { result } = interpretToolResult(value);
  value.completeness.reasons.length = 0;
  if (value.scope) value.scope.snapshot = 's-2';
  assert.equal(result.completeness.reasons.length, 1);
  assert.equal(result.scope?.snapshot, 's-1');
});

test('an envelope the fast path is unsure of is still judged by zod', () => {
  const tricky = [
    { status: 'partial', completeness: { complete: false, reasons: [] } },
    { status: 'partial', completeness: { complete: false, reasons: [{ code: 'RATE_LIMITED' }] }, scope: undefined },
    { status: 'complete', completeness: { complete: true, reasons: [{ code: 'RATE_LIMITED' }] } },
    { status: 'complete', completeness: { complete: true }, pagination: { pages: 1.5, short_pages: 0 } },
  ];
  const verdicts = tricky.map((v) => [fastParseToolResult(v) === undefined, interpretToolResult(v).recognized]);
  assert.deepEqual(verdicts, [
    [true, 'invalid'],
    [true, 'contract'],
    [true, 'invalid'],
    [true, 'invalid'],
  ]);
});
