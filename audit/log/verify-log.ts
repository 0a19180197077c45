/**
 * Checking the Merkle log without re-walking rows: every stored checkpoint must carry a valid signature by a
 * trusted key, the tree must still hold the root each one signed, and each must be consistent with the one before
 * (RFC 9162 consistency proofs built from the stored tiles). A checkpoint held outside the database (a witness's
 * copy) is checked the same way against the newest stored one: a tree rewritten after it was published fails.
 */
import { parseCheckpoint } from './checkpoint.ts';
import { leafHashes } from './hashes.ts';
import { type NoteVerifier, openNote } from './note.ts';
import { logOfOrigin } from './origin.ts';
import { verifyConsistency } from './rfc6962.ts';
import { type LogId, type LogStore, MissingNodeError, type StoredCheckpoint } from './store.ts';
import { TileEdge } from './tiles.ts';

export const LOG_ISSUE_KINDS = [
  /** A checkpoint whose signature does not verify, or by no trusted key. */
  'checkpoint_signature_invalid',
  /** The tree no longer holds the root a checkpoint signed: tiles (or leaves) rewritten or removed. */
  'checkpoint_root_mismatch',
  /** Two checkpoints of one log that no append-only history joins: the tree was rewritten between them. */
  'checkpoint_inconsistent',
  /** A leaf whose hash is not SHA-256(0x00 || its entry hash): edited in place. */
  'leaf_altered',
  /** A node a proof needs is gone: its tile is missing or too narrow. */
  'log_node_missing',
  /** Leaves without their data (entries rows deleted), or leaf hashes missing: a hole in the log. */
  'leaf_gap',
] as const;
export type LogIssueKind = (typeof LOG_ISSUE_KINDS)[number];

export interface LogIssue {
  kind: LogIssueKind;
  tenant: string;
  log: string;
  /** The tree size of the checkpoint concerned. */
  size: number | null;
  statement: string;
}

export interface LogSummary {
  tenant: string;
  log: string;
  leaves: number;
  checkpoints: number;
  latest: { size: number; root_hash: string; published_at: string } | null;
}

interface Opened {
  size: number;
  root: Buffer;
  stored?: StoredCheckpoint;
}

function open(
  note: string,
  verifiers: readonly NoteVerifier[],
): { ok: true; size: number; root: Buffer; origin: string } | { ok: false; message: string } {
  const o = openNote(note, verifiers);
  if (!o.ok) return { ok: false, message: o.message };
  try {
    const c = parseCheckpoint(o.text);
    return { ok: true, size: c.size, root: c.root, origin: c.origin };
  } catch (err) {
    return { ok: false, message: (err as Error).message };
  }
}

/** Root at `size` and the consistency of `a` -> `b`, from the stored tiles; an issue for what fails. */
async function checkPair(store: LogStore, id: LogId, a: Opened | undefined, b: Opened): Promise<LogIssue | undefined> {
  const at = { tenant: id.tenant, log: id.log, size: b.size };
  try {
    const root = await store.rootAt(id, b.size);
    if (!root.equals(b.root))
      return {
        kind: 'checkpoint_root_mismatch',
        ...at,
        statement: `the tree of ${id.tenant}/${id.log} no longer holds the root its checkpoint of ${b.size} leaves signed: its tiles were rewritten`,
      };
    if (!a || a.size === 0 || a.size === b.size) {
      if (a && a.size === b.size && !a.root.equals(b.root))
        return {
          kind: 'checkpoint_inconsistent',
          ...at,
          statement: `two checkpoints of ${id.tenant}/${id.log} sign different roots for ${b.size} leaves`,
        };
      return undefined;
    }
    const proof = await store.consistencyProof(id, a.size, b.size);
    if (!verifyConsistency(a.size, b.size, proof, a.root, b.root))
      return {
        kind: 'checkpoint_inconsistent',
        ...at,
        statement: `the checkpoint of ${b.size} leaves of ${id.tenant}/${id.log} is not an append-only extension of the one of ${a.size}: the tree was rewritten in between`,
      };
    return undefined;
  } catch (err) {
    if (err instanceof MissingNodeError) return { kind: 'log_node_missing', ...at, statement: err.message };
    throw err;
  }
}

/** Every stored checkpoint of every log of the tenant ('' = all), checked in size order. */
export async function verifyLogs(
  store: LogStore,
  options: { tenant?: string; verifiers: readonly NoteVerifier[] },
): Promise<{ logs: LogSummary[]; issues: LogIssue[] }> {
  const issues: LogIssue[] = [];
  const logs: LogSummary[] = [];
  for (const id of await store.logs(options.tenant ?? '')) {
    const { size, leaves } = await store.head(id);
    if (leaves < size)
      issues.push({
        kind: 'leaf_gap',
        ...id,
        size,
        statement: `the log ${id.tenant}/${id.log} holds the data of ${leaves} of its ${size} leaves: ${size - leaves} were deleted`,
      });
    const stored = await store.checkpoints(id);
    issues.push(...(await foldLeaves(store, id, stored)));
    let previous: Opened | undefined;
    for (const c of stored) {
      const o = open(c.note, options.verifiers);
      if (!o.ok) {
        issues.push({ kind: 'checkpoint_signature_invalid', ...id, size: Number(c.size_text), statement: o.message });
        continue;
      }
      const current = { size: o.size, root: o.root, stored: c };
      const problem = await checkPair(store, id, previous, current);
      if (problem) issues.push(problem);
      previous = current;
    }
    const last = stored.at(-1);
    logs.push({
      ...id,
      leaves: size,
      checkpoints: stored.length,
      latest: last
        ? {
            size: Number(last.size_text),
            root_hash: last.root_hash,
            published_at: new Date(Number(last.published_ms_text)).toISOString(),
          }
        : null,
    });
  }
  // One issue per (log, kind, checkpoint): the tiles and the refolded leaves can both lose the same signed root.
  const seen = new Set<string>();
  const unique = issues.filter((i) => {
    if (i.size === null) return true;
    const k = JSON.stringify([i.tenant, i.log, i.kind, i.size]);
    if (seen.has(k)) return false;
    seen.add(k);
    return true;
  });
  return { logs, issues: unique };
}

/**
 * The leaves folded into a tree from scratch, from their entries, their roots compared with every checkpoint's:
 * catches leaves edited or replaced even where the stored tiles (which proofs use) were left alone; and each stored
 * leaf hash checked against its entry. O(leaves) hashing (in batches), no row read.
 */
async function foldLeaves(store: LogStore, id: LogId, checkpoints: readonly StoredCheckpoint[]): Promise<LogIssue[]> {
  const issues: LogIssue[] = [];
  const { count, entries, leafHashes: stored } = await store.leaves(id);
  const leaves = leafHashes(entries);
  for (let i = 0; i < count; i++) {
    if (leaves.compare(stored, 32 * i, 32 * i + 32, 32 * i, 32 * i + 32) !== 0)
      issues.push({
        kind: 'leaf_altered',
        ...id,
        size: null,
        statement: `leaf ${i} of ${id.tenant}/${id.log} does not hash its entry: it was edited`,
      });
  }
  const sizes = new Map<number, string[]>();
  for (const c of checkpoints) sizes.set(Number(c.size_text), [...(sizes.get(Number(c.size_text)) ?? []), c.root_hash]);
  const edge = new TileEdge();
  // Nothing past a gap can be folded (the gap is reported as leaf_gap).
  for (const size of [...sizes.keys()].filter((n) => n <= count).sort((a, b) => a - b)) {
    edge.append(leaves.subarray(32 * edge.size, 32 * size));
    const root = edge.root().toString('hex');
    for (const signed of sizes.get(size)!) {
      if (root !== signed)
        issues.push({
          kind: 'checkpoint_root_mismatch',
          ...id,
          size,
          statement: `the leaves of ${id.tenant}/${id.log} no longer fold to the root its checkpoint of ${size} leaves signed: leaves were rewritten`,
        });
    }
  }
  return issues;
}

export type CheckpointVerdict =
  | { ok: true; tenant: string; log: string; size: number; against: number; statement: string }
  | { ok: false; reason: 'signature' | LogIssueKind | 'unknown_log'; statement: string };

/**
 * `tooltrail checkpoint verify`: a checkpoint held elsewhere (a witness's copy) against the log as stored: its
 * signature, the tree still holding its root, and consistency with the newest stored checkpoint (or `later`).
 */
export async function verifyHeldCheckpoint(
  store: LogStore,
  note: string,
  verifiers: readonly NoteVerifier[],
  later?: string,
): Promise<CheckpointVerdict> {
  const held = open(note, verifiers);
  if (!held.ok) return { ok: false, reason: 'signature', statement: held.message };
  const id = logOfOrigin(held.origin);
  if (!id) return { ok: false, reason: 'unknown_log', statement: `origin ${held.origin} names no tooltrail log` };
  let newer: Opened | undefined;
  if (later !== undefined) {
    const l = open(later, verifiers);
    if (!l.ok) return { ok: false, reason: 'signature', statement: `the later checkpoint: ${l.message}` };
    newer = l;
  } else {
    const last = (await store.checkpoints(id)).at(-1);
    if (last) {
      const l = open(last.note, verifiers);
      if (!l.ok) return { ok: false, reason: 'signature', statement: `the newest stored checkpoint: ${l.message}` };
      newer = l;
    }
  }
  const first = await checkPair(store, id, undefined, held);
  if (first) return { ok: false, reason: first.kind, statement: first.statement };
  if (newer && newer.size < held.size)
    return {
      ok: false,
      reason: 'checkpoint_inconsistent',
      statement: `the log ${id.tenant}/${id.log} now signs ${newer.size} leaves, fewer than the ${held.size} this checkpoint signed: it was truncated`,
    };
  if (newer) {
    const problem = await checkPair(store, id, held, newer);
    if (problem) return { ok: false, reason: problem.kind, statement: problem.statement };
  }
  const against = newer?.size ?? held.size;
  return {
    ok: true,
    ...id,
    size: held.size,
    against,
    statement: `checkpoint ${id.tenant}/${id.log} of ${held.size} leaves: signature valid, still in the tree, consistent with ${against} leaves`,
  };
}
