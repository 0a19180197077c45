/**
 * The column decoder (ingest/columns/) must give exactly the Native blocks of the general path
 * (decode -> flatten -> encodeNative) for every message it takes, and leave every other message to that path.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Attr } from '../../../contract/index.ts';
import { assembleBlocks, ColumnArena, type ColumnsMark, type EncodedRows } from '../../../ingest/columns/arena.ts';
import type { DeclineReason } from '../../../ingest/columns/decline.ts';
import { decodeToColumns } from '../../../ingest/columns/decode.ts';
import { type FlattenOptions, flatten } from '../../../ingest/flatten.ts';
import type { KeyValue } from '../../../platform/otlp/index.ts';
import {
  decodeExportTraceServiceRequest,
  type ExportTraceServiceRequest,
  encodeExportTraceServiceRequest,
} from '../../../platform/otlp/index.ts';
import type { Rows } from '../../../schema/rows.ts';
import { syntheticMessage } from '../../../testkit/ingest.ts';
import { attr, int, newTraceId, request, str, toolCallSpan } from '../../../testkit/otlp-requests.ts';
import { blocksOf, plainRequest, prng, randomRequest, sdkPayload } from './otlp-payloads.ts';

const OPTIONS: FlattenOptions[] = [{}, { defaultTenant: 'fallback' }, { tenant: 'authenticated' }];

function encodedOf(b: EncodedRows): Buffer[] {
  return [b.toolCalls.body, b.warnings.body, b.spans.body];
}

/** The general path's rows of several messages, or undefined when one of them fails or rejects a span. */
function generalRows(messages: readonly Uint8Array[], o: FlattenOptions): Rows | undefined {
  const rows: Rows = { toolCalls: [], warnings: [], spans: [] };
  for (const m of messages) {
    let request: ExportTraceServiceRequest;
    try {
      request = decodeExportTraceServiceRequest(m);
    } catch {
      return undefined;
    }
    const f = flatten(request, o);
    if (f.rejected.length > 0) return undefined;
    rows.toolCalls.push(...f.toolCalls);
    rows.warnings.push(...f.warnings);
    rows.spans.push(...f.spans);
  }
  return rows;
}

function positions(arena: ColumnArena): number[] {
  return arena.streams.map((s) => s.pos);
}

/** Decodes `bytes` alone; when the column path takes it, its block must equal the general path's. */
function check(bytes: Uint8Array, o: FlattenOptions, label: string): boolean {
  const arena = new ColumnArena();
  const before = positions(arena);
  const mark = decodeToColumns(arena, bytes, o);
  if (!mark) {
    assert.deepEqual(positions(arena), before, `${label}: a message left to the general path leaves no bytes`);
    return false;
  }
  const rows = generalRows([bytes], o);
  assert.ok(rows, `${label}: the column path took a message the general path fails or rejects spans of`);
  assert.deepEqual(encodedOf(assembleBlocks(arena, [mark])), blocksOf(rows), `${label}: same Native blocks`);
  assert.equal(mark.toolCalls + mark.spans, rows.toolCalls.length + rows.spans.length, `${label}: span count`);
  return true;
}

describe('ingest column decoder (wire bytes -> Native columns)', () => {
  it('gives the Native blocks of decode + flatten + encodeNative for random well-formed requests', () => {
    let taken = 0;
    for (let seed = 1; seed <= 400; seed++) {
      const bytes = encodeExportTraceServiceRequest(plainRequest(prng(seed)));
      for (const o of OPTIONS) if (check(bytes, o, `plain ${seed} ${JSON.stringify(o)}`)) taken++;
    }
    // Most of these are the plain case the path exists for (the rest carry e.g. integer-like or repeated keys).
    assert.ok(taken > 800, `column path took ${taken} of 1200`);
  });

  it('takes the collector-shaped bench messages and the OTel JS serializer output', () => {
    for (let seed = 0; seed < 20; seed++) {
      const bytes = syntheticMessage({ seed, toolSpans: 8, tenant: 'acme', warningEvery: 3 });
      for (const o of OPTIONS) assert.ok(check(bytes, o, `synthetic ${seed}`), `synthetic ${seed} taken`);
    }
    const sdk = sdkPayload();
    assert.ok(check(sdk, { defaultTenant: 'acme' }, 'sdk'), 'sdk payload taken');
  });

  it('leaves to the general path, or agrees with it on, arbitrary requests (bytes, lists, bad ids, no tenant)', () => {
    for (let seed = 1; seed <= 400; seed++) {
      const bytes = encodeExportTraceServiceRequest(randomRequest(prng(seed)));
      for (const o of OPTIONS) check(bytes, o, `random ${seed} ${JSON.stringify(o)}`);
    }
  });

  it('takes no corrupted or truncated payload that the general path fails on or rows differ for', () => {
    for (let seed = 1; seed <= 400; seed++) {
      const r = prng(seed * 7919);
      const bytes = Buffer.from(encodeExportTraceServiceRequest(plainRequest(r)));
      if (bytes.length === 0) continue;
      const copy = Buffer.from(bytes);
      for (let k = 0; k <= r.int(3); k++) copy[r.int(copy.length)] = r.int(256);
      check(copy, {}, `corrupted ${seed}`);
      check(bytes.subarray(0, r.int(bytes.length)), {}, `truncated ${seed}`);
    }
  });

  it('leaves a resource tenant outside the one tenant rule to the general path, which rejects its spans', () => {
    const bytes = syntheticMessage({ seed: 1, toolSpans: 2, tenant: 'acme:prod' });
    for (const o of [{}, { defaultTenant: 'fallback' }]) {
      assert.equal(decodeToColumns(new ColumnArena(), bytes, o), undefined);
      assert.equal(flatten(decodeExportTraceServiceRequest(bytes), o).rejected[0]?.reason, 'invalid_tenant');
    }
    assert.notEqual(decodeToColumns(new ColumnArena(), bytes, { tenant: 'authenticated' }), undefined);
  });

  it('keeps cursor-traversal attributes in the attributes map as flatten does, and leaves malformed ones to it', () => {
    const page = (...extra: KeyValue[]) => {
      const s = toolCallSpan(newTraceId(), 'conv-traversal');
      return { ...s, attributes: [...(s.attributes ?? []), ...extra] };
    };
    const body = (...extra: KeyValue[]) =>
      encodeExportTraceServiceRequest(request([page(...extra)], [attr(Attr.TENANT, str('acme'))]));
    const well = body(attr(Attr.TRAVERSAL_ID, str('call-1')), attr(Attr.TRAVERSAL_PAGE, int(2)));
    assert.ok(check(well, {}, 'well-formed traversal attributes'), 'taken by the column path');
    const flagged = [
      body(attr(Attr.TRAVERSAL_PAGE, str('2'))),
      body(attr(Attr.TRAVERSAL_ID, int(7))),
      body(attr(Attr.TRAVERSAL_BREAK, str('SNAPSHOT_MOVED'))),
    ];
    for (const [i, bytes] of flagged.entries()) {
      assert.equal(decodeToColumns(new ColumnArena(), bytes, {}), undefined, `malformed ${i} left to flatten`);
      const rows = flatten(decodeExportTraceServiceRequest(bytes), {});
      assert.deepEqual(rows.toolCalls[0]?.warnings, ['INVALID_CONTRACT_ATTRIBUTE'], `malformed ${i} flagged`);
    }
    assert.ok(check(body(attr(Attr.TRAVERSAL_BREAK, str('SNAPSHOT_CHANGED'))), {}, 'a known break'), 'taken');
  });

  it('leaves invalid UTF-8 to the general path', () => {
    const bytes = Buffer.from(syntheticMessage({ seed: 1, toolSpans: 2, tenant: 'acme' }));
    for (const needle of ['acme', 'list_accounts', 'gen_ai.tool.name']) {
      const copy = Buffer.from(bytes);
      copy[copy.indexOf(Buffer.from(needle)) + 1] = 0xff;
      assert.equal(decodeToColumns(new ColumnArena(), copy), undefined, needle);
    }
  });

  it('builds a batch block from many messages, in order, also after the arena dropped stored batches', () => {
    const messages: Uint8Array[] = [];
    for (let seed = 1; seed <= 60; seed++) {
      messages.push(
        seed % 3 === 0
          ? syntheticMessage({ seed, toolSpans: 4, tenant: 'acme', warningEvery: 2 })
          : encodeExportTraceServiceRequest(plainRequest(prng(seed))),
      );
    }
    const arena = new ColumnArena();
    const taken: { bytes: Uint8Array; mark: ColumnsMark }[] = [];
    for (const bytes of messages) {
      const mark = decodeToColumns(arena, bytes);
      if (mark) taken.push({ bytes, mark });
    }
    assert.ok(taken.length > 30);
    const same = (part: typeof taken, label: string) =>
      assert.deepEqual(
        encodedOf(
          assembleBlocks(
            arena,
            part.map((t) => t.mark),
          ),
        ),
        blocksOf(
          generalRows(
            part.map((t) => t.bytes),
            {},
          )!,
        ),
        label,
      );
    same(taken, 'all messages, one range per stream');
    same(
      taken.filter((_, i) => i % 2 === 0),
      'every other message, range by range',
    );
    // Store the first 10, drop their bytes: the rest keep their blocks.
    arena.compact(taken.slice(10).map((t) => t.mark));
    same(taken.slice(10), 'after dropping the first batch');
    // Messages decoded after the compaction follow on.
    const more = encodeExportTraceServiceRequest(plainRequest(prng(999)));
    const mark = decodeToColumns(arena, more);
    if (mark) same([...taken.slice(10), { bytes: more, mark }], 'a message decoded after the compaction');
  });

  it('assembles each batch into the memory of the previous block of its table, grown when a batch is larger', () => {
    const arena = new ColumnArena();
    const batch = (from: number, count: number) => {
      const messages = Array.from({ length: count }, (_, i) =>
        syntheticMessage({ seed: from + i, toolSpans: 8, tenant: 'acme', warningEvery: 2 }),
      );
      const marks = messages.map((m) => decodeToColumns(arena, m)!);
      const blocks = assembleBlocks(arena, marks);
      assert.deepEqual(encodedOf(blocks), blocksOf(generalRows(messages, {})!), `batch at ${from}: its rows`);
      arena.compact([]);
      return blocks;
    };
    const first = batch(0, 6);
    const smaller = batch(100, 3);
    // No fresh pages per batch: a buffer of tens of MB costs the kernel a zeroed page per 4 KiB on first write.
    assert.equal(smaller.toolCalls.body.buffer, first.toolCalls.body.buffer, 'tool_calls: the same memory');
    assert.equal(smaller.spans.body.buffer, first.spans.body.buffer, 'spans: the same memory');
    const larger = batch(200, 12);
    assert.notEqual(larger.toolCalls.body.buffer, first.toolCalls.body.buffer, 'a larger batch: grown');
  });

  it('names the reason of each decline', () => {
    const reasons: DeclineReason[] = [];
    const note = (r: DeclineReason) => reasons.push(r);
    assert.equal(
      decodeToColumns(new ColumnArena(), syntheticMessage({ seed: 1, toolSpans: 1, tenant: 'acme:prod' }), {}, note),
      undefined,
    );
    const truncated = syntheticMessage({ seed: 2, toolSpans: 2, tenant: 'acme' });
    assert.equal(decodeToColumns(new ColumnArena(), truncated.subarray(0, truncated.length - 3), {}, note), undefined);
    assert.deepEqual(reasons, ['tenant', 'wire_subset']);
  });

  it('lets a programming error surface (thrown, the arena as before) instead of taking it for a decline', () => {
    const arena = new ColumnArena();
    assert.ok(decodeToColumns(arena, syntheticMessage({ seed: 3, toolSpans: 2, tenant: 'acme' })));
    const before = arena.streams.map((s) => s.pos);
    const planted = new TypeError('planted bug');
    const options: FlattenOptions = {
      get tenant(): string {
        throw planted;
      },
    };
    const reasons: DeclineReason[] = [];
    assert.throws(
      () =>
        decodeToColumns(arena, syntheticMessage({ seed: 4, toolSpans: 2, tenant: 'acme' }), options, (r) =>
          reasons.push(r),
        ),
      (err) => err === planted,
    );
    assert.deepEqual(
      arena.streams.map((s) => s.pos),
      before,
      'the arena as before',
    );
    assert.deepEqual(reasons, [], 'not counted as a decline');
  });
});
