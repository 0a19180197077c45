/**
 * The digest entries computed from Native blocks (audit/native-entries.ts), with the native row hasher
 * (audit/native-core/row-hashes.c) and with the JavaScript writer. Blocks are what the writer inserts for generated
 * OTLP requests (flatten, then encodeRows), intact or with their bytes mutated. Rules: intact blocks give
 * canonical.ts's entries (what `tooltrail verify` recomputes) on both paths; a mutated block gives the same entries
 * on both paths or is refused by both with a `native block` error; nothing else is thrown, no case hangs (2 s).
 * A memory error in the C code ends the process: the run then fails as a crash.
 */
import { digestEntries, type EntriesByTenant } from '../../audit/entries.ts';
import { type NativeRowHasher, nativeRowHasher } from '../../audit/native-core/index.ts';
import { entriesFromBlocks, type StoredBlocks } from '../../audit/native-entries.ts';
import { flatten } from '../../ingest/flatten.ts';
import { encodeRows } from '../../ingest/writer.ts';
import {
  decodeExportTraceServiceRequest,
  encodeExportTraceServiceRequest,
  exportTraceServiceRequestFromJson,
} from '../../platform/otlp/index.ts';
import { type Json, mutateBytes, validRequestJson } from '../otlp-gen.ts';
import { clip, type FuzzTarget, TargetReport } from '../report.ts';
import { Rng } from '../rng.ts';

const HANG_MS = 2000;
const TABLES = ['toolCalls', 'warnings', 'spans'] as const;

/** Entries in one order, as text: both paths group alike but need not list alike. */
function normal(e: EntriesByTenant): string {
  const hours = [...e].flatMap(([tenant, byHour]) =>
    [...byHour].map(([hour, list]) => `${tenant}|${hour}|${list.map((x) => `${x.table}:${x.id}:${x.hash}`).sort()}`),
  );
  return hours.sort().join('\n');
}

/** The document with every `key` string's non-ASCII characters replaced by `k`. */
function asciiKeys(doc: Json): Json {
  if (Array.isArray(doc)) return doc.map(asciiKeys);
  if (doc === null || typeof doc !== 'object') return doc;
  return Object.fromEntries(
    Object.entries(doc).map(([k, v]) => [
      k,
      k === 'key' && typeof v === 'string' ? v.replace(/[\u0080-\uffff]/g, 'k') : asciiKeys(v),
    ]),
  );
}

/** `entries:<text>` or `refused` (a `native block` error); anything else thrown is rethrown. */
function outcome(blocks: StoredBlocks, hasher: NativeRowHasher | null): string {
  try {
    return `entries:${normal(entriesFromBlocks(blocks, hasher))}`;
  } catch (err) {
    if (err instanceof Error && /^native block/.test(err.message)) return 'refused';
    throw err;
  }
}

/** `hasher`: the native row hasher under test (the checker's own test passes a faulty one). */
export function fuzzDigests(
  cases: number,
  seed: number,
  report: TargetReport,
  hasher: NativeRowHasher | undefined = nativeRowHasher,
): void {
  if (!hasher) throw new Error('the native row hasher is not built (npm run build:native): nothing to compare');
  const rng = new Rng(seed);
  for (let i = 0; i < cases; i++) {
    report.cases++;
    // Through protobuf as the ingest gets it (Kafka carries protobuf): a lone surrogate of the JSON becomes U+FFFD.
    // Half the cases with ASCII attribute keys: the native hasher declines blocks whose map keys are not ASCII
    // (their JS string order), so only those reach its map code.
    const doc = validRequestJson(rng);
    const { request } = exportTraceServiceRequestFromJson(rng.bool() ? asciiKeys(doc) : doc);
    const wire = decodeExportTraceServiceRequest(encodeExportTraceServiceRequest(request));
    const rows = flatten(wire, { defaultTenant: 'dflt' });
    const blocks = encodeRows(rows);
    const withRows = TABLES.filter((t) => blocks[t].rows > 0);
    const table = rng.pick(withRows.length > 0 ? withRows : TABLES);
    const mutated = rng.bool(0.8) && blocks[table].rows > 0;
    const input: StoredBlocks = mutated
      ? { ...blocks, [table]: { rows: blocks[table].rows, body: mutateBytes(rng, blocks[table].body) } }
      : blocks;
    const label = mutated ? `${table} mutated (${input[table].body.length} bytes)` : 'intact';
    const t0 = performance.now();
    try {
      const native = outcome(input, hasher);
      const js = outcome(input, null);
      const expected = mutated ? js : `entries:${normal(digestEntries(rows))}`;
      report.outcome(mutated ? (native === 'refused' ? 'mutated: refused' : 'mutated: hashed') : 'intact');
      if (native !== js || native !== expected)
        report.violation({
          kind: 'disagreement',
          index: i,
          input: label,
          answer: clip(`native ${native.slice(0, 200)} / javascript ${js.slice(0, 200)}`),
        });
    } catch (err) {
      report.violation({ kind: 'crash', index: i, input: label, answer: String((err as Error)?.stack ?? err) });
    }
    if (performance.now() - t0 > HANG_MS) report.violation({ kind: 'hang', index: i, input: label, answer: '' });
  }
}

export const digestsTarget: FuzzTarget = {
  name: 'digests',
  async run(cases, seed) {
    const report = new TargetReport('digests');
    fuzzDigests(cases, seed, report);
    return report;
  },
};
