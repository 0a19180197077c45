import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { Ajv2020 } from 'ajv/dist/2020.js';
import {
  CONTINUATION_KINDS,
  REASON_CODES,
  ToolResultRuntimeSchema,
  ToolResultSchema,
  WARNING_CODES,
} from '../../../contract/index.ts';
import { CONTRACT_SCHEMA_PATH, renderContractJsonSchema } from '../../../instrumentation/export-json-schema.ts';
import { interpretToolResult } from '../../../instrumentation/index.ts';

const jsonSchema = JSON.parse(readFileSync(CONTRACT_SCHEMA_PATH, 'utf8'));
const ajv = new Ajv2020({ strict: false });
const validateJson = ajv.compile(jsonSchema);

/** Envelopes a tool may send, each with whether it is a valid contract. */
const SAMPLES: [string, unknown, boolean][] = [
  ['complete with items', { status: 'complete', completeness: { complete: true }, items: [1] }, true],
  ['complete and empty', { status: 'complete', completeness: { complete: true }, items: [] }, true],
  [
    'incomplete with items',
    { status: 'partial', completeness: { complete: false, reasons: [{ code: 'RESULT_LIMIT_REACHED' }] }, items: [1] },
    true,
  ],
  [
    'incomplete and empty, with a cursor',
    {
      status: 'partial',
      completeness: {
        complete: false,
        reasons: [{ code: 'MORE_PAGES_AVAILABLE' }],
        continuation: { kind: 'next_cursor', cursor: 'c2' },
      },
      items: [],
      scope: { resource: 'service_accounts', visibility: 'readable by this credential', snapshot: 'snap' },
      warnings: [{ code: 'STALE_INDEX', message: 'lags', source: 'search-index' }],
    },
    true,
  ],
  [
    'error with no usable data',
    { status: 'error', completeness: { complete: false }, error: { type: 'timeout', message: 'no answer' } },
    true,
  ],
  [
    'complete with a reason',
    { status: 'complete', completeness: { complete: true, reasons: [{ code: 'RATE_LIMITED' }] } },
    false,
  ],
  ['complete status, complete false', { status: 'complete', completeness: { complete: false, reasons: [] } }, false],
  ['partial without a reason', { status: 'partial', completeness: { complete: false, reasons: [] } }, false],
  ['partial claiming complete', { status: 'partial', completeness: { complete: true } }, false],
  [
    'unknown reason code',
    { status: 'partial', completeness: { complete: false, reasons: [{ code: 'TRUNCATED' }] } },
    false,
  ],
  [
    'a warning used as a reason',
    { status: 'partial', completeness: { complete: false, reasons: [{ code: 'STALE_INDEX' }] } },
    false,
  ],
  [
    'a warning without its source',
    { status: 'complete', completeness: { complete: true }, warnings: [{ code: 'STALE_INDEX', message: 'm' }] },
    false,
  ],
  [
    'a next_cursor continuation without a cursor',
    {
      status: 'partial',
      completeness: {
        complete: false,
        reasons: [{ code: 'MORE_PAGES_AVAILABLE' }],
        continuation: { kind: 'next_cursor' },
      },
    },
    false,
  ],
  ['an error without its error', { status: 'error', completeness: { complete: false } }, false],
  [
    'complete continuing with a cursor',
    { status: 'complete', completeness: { complete: true, continuation: { kind: 'next_cursor', cursor: 'x' } } },
    false,
  ],
  ['no completeness at all', { status: 'complete', items: [] }, false],
  ['items that are not a list', { status: 'complete', completeness: { complete: true }, items: { a: 1 } }, false],
];

for (const [name, sample, valid] of SAMPLES) {
  test(`${valid ? 'accepts' : 'rejects'} ${name}, in zod and in the exported JSON Schema alike`, () => {
    assert.equal(ToolResultSchema.safeParse(sample).success, valid, 'zod');
    assert.equal(ToolResultRuntimeSchema.safeParse(sample).success, valid, 'zod, run-time variant');
    assert.equal(validateJson(sample), valid, `JSON Schema: ${ajv.errorsText(validateJson.errors)}`);
  });
}

test('the committed JSON Schema equals the one generated from the zod schema', () => {
  // Compared as data, so that a formatter's line breaks do not matter.
  assert.deepEqual(
    jsonSchema,
    JSON.parse(renderContractJsonSchema()),
    'regenerate with: node --import tsx instrumentation/export-json-schema.ts',
  );
});

test('the JSON Schema lists exactly the contract codes', () => {
  const text = JSON.stringify(jsonSchema);
  for (const code of [...REASON_CODES, ...WARNING_CODES, ...CONTINUATION_KINDS])
    assert.ok(text.includes(`"${code}"`), code);
});

test('reasons and warnings are separate lists: a warning never makes a result incomplete', () => {
  const r = interpretToolResult({
    status: 'complete',
    completeness: { complete: true },
    items: [],
    warnings: [{ code: 'STALE_INDEX', message: 'lags by 5 minutes', source: 'search-index' }],
  });
  assert.equal(r.recognized, 'contract');
  assert.equal(r.result.completeness.complete, true);
  assert.deepEqual(r.result.completeness.reasons, []);
  assert.equal(r.result.warnings[0]?.source, 'search-index');
});

test('a tool that reports nothing about completeness yields complete false with COMPLETENESS_UNKNOWN', () => {
  const http = { status: 200, items: [] };
  for (const value of [[], [1, 2], { rows: [] }, null, undefined, 'ok', { items: [], next_cursor: null }, http]) {
    const r = interpretToolResult(value);
    assert.equal(r.recognized, 'unknown', JSON.stringify(value));
    assert.equal(r.result.completeness.complete, false);
    assert.deepEqual(
      r.result.completeness.reasons.map((x) => x.code),
      ['COMPLETENESS_UNKNOWN'],
    );
  }
});

test('an invalid contract keeps its items but never its claim', () => {
  const r = interpretToolResult({ status: 'complete', completeness: { complete: 'yes' }, items: ['a'] });
  assert.equal(r.recognized, 'invalid');
  assert.equal(r.result.completeness.complete, false);
  assert.deepEqual(r.result.items, ['a']);
  assert.match(r.problem ?? '', /completeness\.complete/);
});
