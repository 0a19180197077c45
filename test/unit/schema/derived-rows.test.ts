import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { TABLE_SPECS } from '../../../audit/canonical.ts';
import {
  nativeTypeOf,
  SPAN_NATIVE,
  TOOL_CALL_COLUMNS,
  TOOL_CALL_DERIVED,
  TOOL_CALL_NATIVE,
} from '../../../schema/rows.ts';
import { TABLES, TOOL_CALLS } from '../../../schema/tables.ts';

describe('what derives from the table definition', () => {
  it('the writer sends every sent column of tool_calls in table order, and neither derived nor server columns', () => {
    assert.deepEqual(
      TOOL_CALL_COLUMNS,
      TOOL_CALLS.columns.filter((c) => c[3] === 'sent').map((c) => c[0]),
    );
    assert.deepEqual(TOOL_CALL_DERIVED, ['duration_ns']);
    assert.ok(!(TOOL_CALL_COLUMNS as string[]).includes('ingested_at'));
  });

  it('Native blocks carry the plain type of each column (ClickHouse converts LowCardinality on insert)', () => {
    assert.deepEqual(
      TOOL_CALL_NATIVE.find(([n]) => n === 'tool_name'),
      ['tool_name', 'String'],
    );
    assert.deepEqual(
      TOOL_CALL_NATIVE.find(([n]) => n === 'event_attributes'),
      ['event_attributes', 'Array(Map)'],
    );
    assert.deepEqual(
      SPAN_NATIVE.find(([n]) => n === 'Events.Timestamp'),
      ['Events.Timestamp', 'Array(DateTime64)'],
    );
    assert.throws(() => nativeTypeOf('Float64'), /no Native encoding for ClickHouse type Float64/);
  });

  it('the canonical audit text covers sent and derived columns in table order, never server-set ones', () => {
    for (const [i, table] of TABLES.entries()) {
      assert.deepEqual(
        TABLE_SPECS[i]?.columns.map(([n]) => n),
        table.columns.filter((c) => c[3] !== 'server').map((c) => c[0]),
      );
    }
  });
});
