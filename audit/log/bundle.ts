/**
 * Proof bundles: for each tool call of an export, its canonical row text, its leaf index and the inclusion proof
 * against a signed checkpoint of its log, with the checkpoint itself. `verifyBundle` checks one offline, with no
 * database: the leaf's entry hash is recomputed from the text in the leaf's canonical version (1: SHA-256 of the
 * text; 2: of the bytes of the values it holds), and the proof must take it to the signed root.
 */
import { createHash } from 'node:crypto';
import { z } from 'zod';
import type { ClickHouseClient } from '../../platform/clickhouse.ts';
import {
  CANONICAL_VERSIONS,
  canonicalRow,
  columnIndex,
  entryBytes,
  selectList,
  TOOL_CALLS_SPEC,
} from '../canonical.ts';
import { sqlFile } from '../sql.ts';
import { parseCheckpoint } from './checkpoint.ts';
import { type NoteVerifier, openNote } from './note.ts';
import { leafHash, verifyInclusion } from './rfc6962.ts';
import type { LogStore } from './store.ts';

/** v2: calls name their canonical version (v1 bundles, all version 1, still verify). */
export const BUNDLE_FORMAT = 'tooltrail.proof-bundle.v2';
const BUNDLE_FORMATS = ['tooltrail.proof-bundle.v1', BUNDLE_FORMAT] as const;

export const BundleCallSchema = z.object({
  table: z.literal('tool_calls'),
  row_id: z.string(),
  log: z.string(),
  leaf_index: z.number().int().nonnegative(),
  tree_size: z.number().int().positive(),
  canonical_text: z
    .string()
    .describe('`tool_calls\\n` + the canonical row (audit/canonical.ts, version 1: the JSON of its canonical values)'),
  canonical_version: z
    .union([z.literal(1), z.literal(2)])
    .default(1)
    .describe(
      'what the leaf hashed: 1, the text itself; 2, the bytes of its values (canonical.ts `entryBytes`). Entry hash = SHA-256 of it',
    ),
  inclusion_proof: z.array(z.string()).describe('base64 SHA-256 hashes, leaf to root (RFC 9162 2.1.3)'),
});

export const ProofBundleSchema = z
  .object({
    format: z.enum(BUNDLE_FORMATS),
    tenant: z.string(),
    generated_at: z.string(),
    checkpoints: z.record(z.string(), z.string()).describe('log -> the signed checkpoint note the proofs are against'),
    calls: z.array(BundleCallSchema),
    not_provable: z
      .array(z.object({ row_id: z.string(), reason: z.string() }))
      .describe('calls without a proof, and why'),
  })
  .meta({ id: 'ProofBundle' });
export type ProofBundle = z.infer<typeof ProofBundleSchema>;

const sha = (data: string | Uint8Array) => createHash('sha256').update(data).digest();
const PREFIX = 'tool_calls\n';
const textOf = (row: string) => `${PREFIX}${row}`;

type BundleVersion = ProofBundle['calls'][number]['canonical_version'];
const isVersion = (v: number): v is BundleVersion => CANONICAL_VERSIONS.includes(v);

/** The entry hash of a call's canonical text in `version` (2: the bytes of the values the text holds). */
function entryHashOf(text: string, version: number): Buffer {
  if (version === 1) return sha(text);
  if (!text.startsWith(PREFIX)) throw new Error('its canonical text is not a tool_calls row');
  const values = JSON.parse(text.slice(PREFIX.length)) as unknown;
  if (!Array.isArray(values) || values.length !== TOOL_CALLS_SPEC.columns.length)
    throw new Error('its canonical text does not hold a tool_calls row');
  return sha(entryBytes(TOOL_CALLS_SPEC, [values]));
}

/** The proofs of these tool calls of one tenant, against the newest checkpoint of each log that covers them. */
export async function buildBundle(
  ch: ClickHouseClient,
  store: LogStore,
  db: string,
  tenant: string,
  spanIds: readonly string[],
  now = new Date(),
): Promise<ProofBundle> {
  const ids = [...new Set(spanIds)];
  const bundle: ProofBundle = {
    format: BUNDLE_FORMAT,
    tenant,
    generated_at: now.toISOString(),
    checkpoints: {},
    calls: [],
    not_provable: [],
  };
  if (ids.length === 0) return bundle;
  const query = sqlFile('tool_calls_by_ids').replaceAll('{{columns}}', selectList(TOOL_CALLS_SPEC));
  const rs = await ch.query({ query, query_params: { db, tenant, ids }, format: 'JSONCompactEachRow' });
  const texts = new Map<string, string>();
  const idAt = columnIndex(TOOL_CALLS_SPEC, 'span_id');
  for (const v of await rs.json<unknown[]>()) texts.set(String(v[idAt]), textOf(canonicalRow(TOOL_CALLS_SPEC, v)));
  const leaves = await store.leavesOfRows(tenant, 'tool_calls', ids);
  const latest = new Map<string, { size: number; note: string } | null>();
  for (const id of ids) {
    const text = texts.get(id);
    if (text === undefined) {
      bundle.not_provable.push({ row_id: id, reason: 'the row is not stored' });
      continue;
    }
    // The leaf whose entry hash is this row's, in the leaf's version; another leaf of the same id means the row
    // changed since.
    const leaf = leaves.find(
      (l) =>
        l.rowId === id &&
        isVersion(l.canonicalVersion) &&
        l.entryHash === entryHashOf(text, l.canonicalVersion).toString('hex'),
    );
    if (!leaf) {
      const ofRow = leaves.filter((l) => l.rowId === id);
      const other = ofRow.find((l) => !isVersion(l.canonicalVersion));
      bundle.not_provable.push({
        row_id: id,
        reason: other
          ? `its leaf was hashed in canonical version ${other.canonicalVersion}, which this tooltrail does not know`
          : ofRow.length > 0
            ? 'the stored row differs from the one the log recorded'
            : 'no leaf of the log stands for the row',
      });
      continue;
    }
    if (!latest.has(leaf.log)) {
      const last = (await store.checkpoints({ tenant, log: leaf.log })).at(-1);
      latest.set(leaf.log, last ? { size: Number(last.size_text), note: last.note } : null);
    }
    const cp = latest.get(leaf.log);
    if (!cp || cp.size <= leaf.index) {
      bundle.not_provable.push({ row_id: id, reason: 'no signed checkpoint covers its leaf yet' });
      continue;
    }
    bundle.checkpoints[leaf.log] = cp.note;
    const proof = await store.inclusionProof({ tenant, log: leaf.log }, leaf.index, cp.size);
    bundle.calls.push({
      table: 'tool_calls',
      row_id: id,
      log: leaf.log,
      leaf_index: leaf.index,
      tree_size: cp.size,
      canonical_text: text,
      canonical_version: leaf.canonicalVersion as BundleVersion,
      inclusion_proof: proof.map((h) => h.toString('base64')),
    });
  }
  return bundle;
}

export interface BundleVerdict {
  ok: boolean;
  tenant: string;
  verified: number;
  failures: { row_id: string; statement: string }[];
  not_provable: { row_id: string; reason: string }[];
}

/** Offline: every call's proof against its checkpoint, every checkpoint against the trusted keys. */
export function verifyBundle(input: unknown, verifiers: readonly NoteVerifier[]): BundleVerdict {
  const parsed = ProofBundleSchema.safeParse(input);
  if (!parsed.success) {
    const where = parsed.error.issues.map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`).join('; ');
    return {
      ok: false,
      tenant: '',
      verified: 0,
      failures: [{ row_id: '', statement: `not a proof bundle: ${where}` }],
      not_provable: [],
    };
  }
  const b = parsed.data;
  const failures: BundleVerdict['failures'] = [];
  const roots = new Map<string, { size: number; root: Buffer } | string>();
  for (const [log, note] of Object.entries(b.checkpoints)) {
    const o = openNote(note, verifiers);
    if (!o.ok) {
      roots.set(log, `checkpoint of log ${log}: ${o.message}`);
      continue;
    }
    try {
      const c = parseCheckpoint(o.text);
      if (!c.origin.endsWith(`/${b.tenant}/${log}`))
        roots.set(log, `checkpoint origin ${c.origin} is not log ${b.tenant}/${log}`);
      else roots.set(log, { size: c.size, root: c.root });
    } catch (err) {
      roots.set(log, `checkpoint of log ${log}: ${(err as Error).message}`);
    }
  }
  let verified = 0;
  for (const c of b.calls) {
    const cp = roots.get(c.log);
    if (cp === undefined || typeof cp === 'string') {
      failures.push({ row_id: c.row_id, statement: cp ?? `no checkpoint for log ${c.log}` });
      continue;
    }
    if (cp.size !== c.tree_size) {
      failures.push({
        row_id: c.row_id,
        statement: `proof is for ${c.tree_size} leaves, the checkpoint signs ${cp.size}`,
      });
      continue;
    }
    let entry: Buffer;
    try {
      entry = entryHashOf(c.canonical_text, c.canonical_version);
    } catch (err) {
      failures.push({ row_id: c.row_id, statement: `tool call ${c.row_id}: ${(err as Error).message}` });
      continue;
    }
    const leaf = leafHash(entry);
    const proof = c.inclusion_proof.map((p) => Buffer.from(p, 'base64'));
    if (!verifyInclusion(leaf, c.leaf_index, c.tree_size, proof, cp.root)) {
      failures.push({
        row_id: c.row_id,
        statement: `tool call ${c.row_id} is not leaf ${c.leaf_index} of the signed tree: its row or its proof was altered`,
      });
      continue;
    }
    verified += 1;
  }
  return {
    ok: failures.length === 0 && verified > 0,
    tenant: b.tenant,
    verified,
    failures,
    not_provable: b.not_provable,
  };
}
