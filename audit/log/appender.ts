/**
 * The writer side of the Merkle log: the digest entries of each sealed record become leaves of the (tenant, log)
 * tree, in record order and entry order, and the complete nodes are stored with them. A checkpoint is signed when
 * the tree has grown by `everyRows` leaves or `everySeconds` have passed since the last one, stored, and handed to
 * the witnesses. Called under the recorder's per-chain serialization, so one log has one appender at a time.
 */
import type { DigestRecord } from '../chain.ts';
import { checkpointText } from './checkpoint.ts';
import type { Frontier, StoredNode } from './frontier.ts';
import { type NoteSigner, signNote } from './note.ts';
import { originOf } from './origin.ts';
import type { LeafRow, LogId, LogStore } from './store.ts';
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
}

interface TreeState {
  frontier: Frontier;
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
    const loading = Promise.all([this.o.store.frontier(id), this.o.store.checkpoints(id)]).then(
      ([frontier, checkpoints]) => {
        const last = checkpoints.at(-1);
        return {
          frontier,
          checkpointSize: last ? Number(last.size_text) : 0,
          checkpointAt: last ? Number(last.published_ms_text) : 0,
        };
      },
    );
    this.trees.set(tenant, loading);
    loading.catch(() => this.trees.get(tenant) === loading && this.trees.delete(tenant));
    return loading;
  }

  /** Reads the trees of these tenants back from the store if not known yet (the recorder starts it early). */
  async load(tenants: readonly string[]): Promise<void> {
    await Promise.all(tenants.map((t) => this.state(t)));
  }

  /**
   * Appends each tenant's records to its tree: every tenant's nodes in one insert, then the checkpoints due (each
   * signed only once the nodes it covers are stored).
   */
  async appendAll(byTenant: ReadonlyMap<string, readonly DigestRecord[]>, nowMs: number): Promise<void> {
    const tenants = [...byTenant.keys()];
    const states = await Promise.all(tenants.map((t) => this.state(t)));
    const grown = tenants.map((tenant, k) => ({
      tenant,
      s: states[k]!,
      ...grow(states[k]!.frontier, byTenant.get(tenant)!),
    }));
    try {
      await this.o.store.appendTrees(grown.map((g) => ({ id: { tenant: g.tenant, log: this.o.log }, nodes: g.nodes })));
    } catch (err) {
      // They may have landed: read the trees back next time.
      for (const t of tenants) this.trees.delete(t);
      throw err;
    }
    for (const g of grown) g.s.frontier = g.next;
    if (!this.o.signer) return;
    for (const { tenant, s } of grown) {
      if (s.frontier.size === s.checkpointSize) continue;
      const due =
        s.frontier.size - s.checkpointSize >= this.o.everyRows || nowMs - s.checkpointAt >= this.o.everySeconds * 1000;
      if (due) await this.checkpoint({ tenant, log: this.o.log }, s, nowMs);
    }
  }

  /** Signs, stores and publishes a checkpoint of every tree that grew since its last one (shutdown, tests). */
  async flush(nowMs: number): Promise<void> {
    for (const [tenant, loading] of this.trees) {
      const s = await loading.catch(() => undefined);
      if (s && this.o.signer && s.frontier.size > s.checkpointSize)
        await this.checkpoint({ tenant, log: this.o.log }, s, nowMs);
    }
  }

  private async checkpoint(id: LogId, s: TreeState, nowMs: number): Promise<void> {
    const signer = this.o.signer!;
    const root = s.frontier.root()!;
    const size = s.frontier.size;
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

/** The records' entries appended to a copy of the frontier: the copy and every node (leaves with their row) it adds. */
function grow(
  frontier: Frontier,
  records: readonly DigestRecord[],
): { next: Frontier; nodes: (LeafRow | StoredNode)[] } {
  const next = frontier.clone();
  const nodes: (LeafRow | StoredNode)[] = [];
  for (const r of records) {
    for (let i = 0; i < r.row_hashes.length; i++) {
      const entryHash = r.row_hashes[i]!;
      const added = next.append(Buffer.from(entryHash, 'hex'));
      const leaf = added[0]!;
      nodes.push({
        level: leaf.level,
        index: leaf.index,
        hash: leaf.hash,
        table: r.row_tables[i]!,
        rowId: r.row_ids[i]!,
        entryHash,
        hour: r.hour,
        batchId: r.batch_id,
      });
      for (let k = 1; k < added.length; k++) nodes.push(added[k]!);
    }
  }
  return { next, nodes };
}
