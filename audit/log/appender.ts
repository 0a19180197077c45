/**
 * The writer side of the Merkle log: each batch's rows become leaves of their tenant's (tenant, log) tree, in run
 * order (runs.ts); their leaf hashes are computed in one batch, the tiles they complete or widen and the rows'
 * entries are stored in one insert for every tenant. A checkpoint is signed when the tree has grown by `everyRows`
 * leaves or `everySeconds` have passed since the last one, stored, and handed to the witnesses. Called under the
 * recorder's per-chain serialization, so one log has one appender at a time.
 */
import { CANONICAL_VERSION } from '../canonical.ts';
import type { LeafRun } from '../runs.ts';
import { checkpointText } from './checkpoint.ts';
import { leafHashes, type TreeHasher } from './hashes.ts';
import { type NoteSigner, signNote } from './note.ts';
import { originOf } from './origin.ts';
import type { EntriesRow, LogId, LogStore } from './store.ts';
import type { Tile, TileEdge } from './tiles.ts';
import { publishToWitnesses, type WitnessSink } from './witness.ts';

export interface LogAppenderOptions {
  store: LogStore;
  log: string;
  /** Origin prefix: the checkpoint origin is `<origin>/<tenant>/<log>`. */
  origin: string;
  signer?: NoteSigner | undefined;
  everyRows: number;
  everySeconds: number;
  witnesses: readonly WitnessSink[];
  /** Told about witness failures (the ingest goes on). */
  onWitnessFailure?: (failures: { sink: string; error: string }[], log: LogId) => void;
  /** Tree hashing (default: the native hasher when built); tests and benches pass `null` for node:crypto. */
  hasher?: TreeHasher;
}

/** What one batch brings to the log: its runs per tenant, and what every entries row records of the batch. */
export interface LoggedBatch {
  runs: ReadonlyMap<string, readonly LeafRun[]>;
  batchId: string;
  recordedMs: number;
  /** Seconds after its hour's end before a run counts as backfill (a late arrival). */
  graceSeconds: number;
}

/** Where a batch's rows went: per tenant, the first leaf and how many. */
export interface LoggedRange {
  tenant: string;
  log: string;
  first: number;
  count: number;
}

interface TreeState {
  edge: TileEdge;
  checkpointSize: number;
  checkpointAt: number;
}

export class LogAppender {
  /** Each tenant's tree, read back from the store once (a promise, so concurrent first uses share one read). */
  private readonly trees = new Map<string, Promise<TreeState>>();

  constructor(private readonly o: LogAppenderOptions) {}

  private state(tenant: string): Promise<TreeState> {
    const known = this.trees.get(tenant);
    if (known) return known;
    const id = { tenant, log: this.o.log };
    const loading = Promise.all([this.o.store.edge(id), this.o.store.checkpoints(id)]).then(([edge, checkpoints]) => {
      const last = checkpoints.at(-1);
      return {
        edge,
        checkpointSize: last ? Number(last.size_text) : 0,
        checkpointAt: last ? Number(last.published_ms_text) : 0,
      };
    });
    this.trees.set(tenant, loading);
    loading.catch(() => this.trees.get(tenant) === loading && this.trees.delete(tenant));
    return loading;
  }

  /**
   * Appends each tenant's runs to its tree: every tenant's tiles and entries in one insert, then the checkpoints due
   * (each signed only once the tiles it covers are stored).
   */
  async append(batch: LoggedBatch): Promise<LoggedRange[]> {
    const tenants = [...batch.runs.keys()];
    const states = await Promise.all(tenants.map((t) => this.state(t)));
    const grown = tenants.map((tenant, k) => ({
      tenant,
      s: states[k]!,
      ...grow(states[k]!.edge, batch, tenant, this.o.hasher),
    }));
    try {
      await this.o.store.append(
        grown.map((g) => ({ id: { tenant: g.tenant, log: this.o.log }, tiles: g.tiles, entries: g.entries })),
      );
    } catch (err) {
      // They may have landed: read the trees back next time.
      for (const t of tenants) this.trees.delete(t);
      throw err;
    }
    for (const g of grown) g.s.edge = g.next;
    if (this.o.signer)
      for (const { tenant, s } of grown) {
        if (s.edge.size === s.checkpointSize) continue;
        const due =
          s.edge.size - s.checkpointSize >= this.o.everyRows ||
          batch.recordedMs - s.checkpointAt >= this.o.everySeconds * 1000;
        if (due) await this.checkpoint({ tenant, log: this.o.log }, s, batch.recordedMs);
      }
    return grown.map((g) => ({ tenant: g.tenant, log: this.o.log, first: g.first, count: g.next.size - g.first }));
  }

  /** Signs, stores and publishes a checkpoint of every tree that grew since its last one (shutdown, tests). */
  async flush(nowMs: number): Promise<void> {
    for (const [tenant, loading] of this.trees) {
      const s = await loading.catch(() => undefined);
      if (s && this.o.signer && s.edge.size > s.checkpointSize)
        await this.checkpoint({ tenant, log: this.o.log }, s, nowMs);
    }
  }

  private async checkpoint(id: LogId, s: TreeState, nowMs: number): Promise<void> {
    const signer = this.o.signer!;
    const root = s.edge.root();
    const size = s.edge.size;
    const note = signNote(checkpointText({ origin: originOf(this.o.origin, id), size, root, extensions: [] }), signer);
    await this.o.store.storeCheckpoint({
      ...id,
      size,
      root_hash: root.toString('hex'),
      key_name: signer.name,
      key_id: signer.keyId,
      note,
      publishedMs: nowMs,
    });
    s.checkpointSize = size;
    s.checkpointAt = nowMs;
    const failures = await publishToWitnesses(this.o.witnesses, { ...id, size, note });
    if (failures.length > 0) this.o.onWitnessFailure?.(failures, id);
  }
}

/** One tenant's runs appended to a copy of its edge: the copy, the tiles to store and the entries rows. */
function grow(
  edge: TileEdge,
  batch: LoggedBatch,
  tenant: string,
  hasher: TreeHasher | undefined,
): { next: TileEdge; first: number; tiles: Tile[]; entries: EntriesRow[] } {
  const runs = batch.runs.get(tenant) ?? [];
  const next = edge.clone();
  const first = edge.size;
  const entries: EntriesRow[] = [];
  let at = first;
  for (const r of runs) {
    entries.push({
      first: at,
      count: r.count,
      table: r.table,
      ids: r.ids,
      entries: r.entries,
      hour: r.hour,
      batchId: batch.batchId,
      recordedMs: batch.recordedMs,
      backfill: batch.recordedMs >= (r.hour + 3600 + batch.graceSeconds) * 1000,
      canonicalVersion: CANONICAL_VERSION,
    });
    at += r.count;
  }
  const all = runs.length === 1 ? runs[0]!.entries : Buffer.concat(runs.map((r) => r.entries));
  const tiles = next.append(leafHashes(all, hasher), hasher);
  return { next, first, tiles, entries };
}
