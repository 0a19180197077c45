import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  canonicalRow,
  entryHash,
  hourOf,
  instantNs,
  SPANS_SPEC,
  TOOL_CALLS_SPEC,
  WARNINGS_SPEC,
} from '../../../audit/canonical.ts';
import { digestHash, sealRecord, signatureValid } from '../../../audit/chain.ts';
import { parseTimeOption } from '../../../audit/cli-support.ts';
import { digestConfigFromEnv } from '../../../audit/config.ts';
import { digestEntries } from '../../../audit/recorder.ts';
import { SPAN_COLUMNS, TOOL_CALL_COLUMNS, TOOL_CALL_DERIVED, WARNING_COLUMNS } from '../../../schema/rows.ts';

const HOUR_S = 1_772_359_200; // 2026-03-01T10:00:00Z

function toolRow(span: string, over: Record<string, unknown> = {}) {
  return {
    tenant: 'acme',
    session_id: 's',
    sequence: '1',
    start_time: `${HOUR_S + 5}.123456789`,
    end_time: `${HOUR_S + 6}.000000000`,
    duration_ns: 876543211,
    trace_id: 'a'.repeat(32),
    span_id: span,
    result_complete: false,
    attributes: { b: '2', a: '1' },
    event_times: [`${HOUR_S + 5}.5`],
    event_attributes: [{ y: '1', x: '2' }],
    ...over,
  };
}

const emptyRows = { toolCalls: [], warnings: [], spans: [] };

describe('canonical rows', () => {
  it('hashes a row the same from the writer form and from the form verify reads back', () => {
    const writer = toolRow('s1');
    // What verify selects: times as integer nanoseconds, 64-bit integers as text, maps in storage order.
    const stored: Record<string, unknown> = {
      ...Object.fromEntries(
        TOOL_CALLS_SPEC.columns.map(([n, t]) => [
          n,
          t === 'strings' || t === 'maps' || t === 'times'
            ? []
            : t === 'map'
              ? {}
              : t === 'bool'
                ? false
                : t === 'uint'
                  ? '0'
                  : t === 'nullable_int'
                    ? null
                    : t === 'time'
                      ? '0'
                      : '',
        ]),
      ),
      tenant: 'acme',
      session_id: 's',
      sequence: '1',
      start_time: instantNs(`${HOUR_S + 5}.123456789`),
      end_time: `${BigInt(HOUR_S + 6) * 1_000_000_000n}`,
      duration_ns: '876543211',
      trace_id: 'a'.repeat(32),
      span_id: 's1',
      attributes: { a: '1', b: '2' },
      event_times: [`${BigInt(HOUR_S + 5) * 1_000_000_000n + 500_000_000n}`],
      event_attributes: [{ x: '2', y: '1' }],
    };
    const values = (row: Record<string, unknown>) => TOOL_CALLS_SPEC.columns.map(([n]) => row[n]);
    assert.equal(canonicalRow(TOOL_CALLS_SPEC, values(writer)), canonicalRow(TOOL_CALLS_SPEC, values(stored)));
  });

  it('changes the hash when any stored value changes', () => {
    const values = (row: Record<string, unknown>) => TOOL_CALLS_SPEC.columns.map(([n]) => row[n]);
    const base = entryHash(TOOL_CALLS_SPEC, [values(toolRow('s1'))]);
    assert.notEqual(entryHash(TOOL_CALLS_SPEC, [values(toolRow('s1', { result_complete: true }))]), base);
    assert.notEqual(
      entryHash(TOOL_CALLS_SPEC, [values(toolRow('s1', { start_time: `${HOUR_S + 5}.123456780` }))]),
      base,
    );
    assert.notEqual(entryHash(TOOL_CALLS_SPEC, [values(toolRow('s1', { attributes: { a: '1' } }))]), base);
  });

  it('reads ClickHouse text times and writer times as the same instant', () => {
    assert.equal(instantNs('2026-03-01 10:00:05.123456789'), instantNs(`${HOUR_S + 5}.123456789`));
    assert.equal(instantNs('2026-03-01 10:00:05'), instantNs(`${HOUR_S + 5}.0`));
    assert.equal(hourOf(`${HOUR_S + 3599}.999999999`), HOUR_S);
    assert.throws(() => instantNs('yesterday'), /not a time value/);
  });

  it('covers every column the ingest writes or tool_calls derives (a new column needs a new canonical version)', () => {
    const names = (spec: typeof TOOL_CALLS_SPEC) => spec.columns.map(([n]) => n).sort();
    assert.deepEqual(names(TOOL_CALLS_SPEC), [...TOOL_CALL_COLUMNS, ...TOOL_CALL_DERIVED].sort());
    assert.deepEqual(names(WARNINGS_SPEC), [...WARNING_COLUMNS].sort());
    assert.deepEqual(names(SPANS_SPEC), [...SPAN_COLUMNS].sort());
  });

  it('groups entries per tenant and hour, and the warnings of one span into one entry', () => {
    const w = (code: string) => ({ tenant: 'acme', time: `${HOUR_S + 10}.0`, code, span_id: 's1' });
    const entries = digestEntries({
      toolCalls: [toolRow('s1'), toolRow('s2', { start_time: `${HOUR_S + 3600}.0` }), toolRow('s3', { tenant: 'b' })],
      warnings: [w('STALE_INDEX'), w('DEPRECATED_FIELD')],
      spans: [{ Tenant: 'acme', Timestamp: `${HOUR_S}.0`, SpanId: 'r1' }],
    });
    assert.deepEqual([...entries.keys()].sort(), ['acme', 'b']);
    const acme = entries.get('acme')!;
    assert.deepEqual([...acme.keys()].sort(), [HOUR_S, HOUR_S + 3600]);
    assert.deepEqual(
      acme
        .get(HOUR_S)!
        .map((e) => `${e.table}:${e.id}`)
        .sort(),
      ['spans:r1', 'tool_call_warnings:s1', 'tool_calls:s1'],
    );
    // The warning group's hash does not depend on row order.
    const reversed = digestEntries({ ...emptyRows, warnings: [w('DEPRECATED_FIELD'), w('STALE_INDEX')] });
    assert.equal(
      reversed.get('acme')!.get(HOUR_S)![0]!.hash,
      acme.get(HOUR_S)!.find((e) => e.table === 'tool_call_warnings')!.hash,
    );
  });
});

describe('digest chain', () => {
  const header = {
    tenant: 'acme',
    chain: 'w1',
    seq: 1,
    hour: HOUR_S,
    batch_id: 'b1',
    recorded_at_ms: HOUR_S * 1000 + 1,
    backfill: false,
    canonical_version: 1,
    previous_hash: '',
  };

  it('binds every field and the row list into the digest hash', () => {
    const r = sealRecord(header, [{ table: 'tool_calls', id: 's1', hash: 'h1' }]);
    assert.equal(digestHash(r), r.digest_hash);
    assert.notEqual(digestHash({ ...r, row_count: 0 }), r.digest_hash);
    assert.notEqual(digestHash({ ...r, backfill: true }), r.digest_hash);
    assert.notEqual(digestHash({ ...r, previous_hash: 'x' }), r.digest_hash);
    const other = sealRecord(header, [{ table: 'tool_calls', id: 's1', hash: 'h2' }]);
    assert.notEqual(other.digest_hash, r.digest_hash);
  });

  it('signs with the key and verifies only with the same key', () => {
    const key = 'k'.repeat(40);
    const r = sealRecord(header, [], key);
    assert.equal(signatureValid(key, r.digest_hash, r.signature), true);
    assert.equal(signatureValid('z'.repeat(40), r.digest_hash, r.signature), false);
    assert.equal(sealRecord(header, []).signature, '');
  });
});

describe('digest and verify configuration', () => {
  it('names every bad environment key at once', () => {
    assert.throws(
      () => digestConfigFromEnv({ TOOLTRAIL_DIGEST_CHAIN: 'bad chain!', TOOLTRAIL_DIGEST_KEY: 'short' }),
      /TOOLTRAIL_DIGEST_CHAIN .*; TOOLTRAIL_DIGEST_KEY must be at least 32/,
    );
    assert.equal(digestConfigFromEnv({ TOOLTRAIL_DIGEST_GRACE_SECONDS: '60' }).graceSeconds, 60);
  });

  it('parses verify time options', () => {
    const now = new Date('2026-03-01T12:00:00Z');
    assert.equal(parseTimeOption('-24h', now).toISOString(), '2026-02-28T12:00:00.000Z');
    assert.equal(parseTimeOption('now', now), now);
    assert.equal(parseTimeOption('2026-03-01T10:00', now).toISOString(), '2026-03-01T10:00:00.000Z');
    assert.throws(() => parseTimeOption("1' OR 1=1", now), /invalid time/);
  });
});
