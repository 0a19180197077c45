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
  private readonly trees = new Map<string, TreeState>();

  constructor(private readonly o: LogAppenderOptions) {}

  private async state(tenant: string): Promise<TreeState> {
    const known = this.trees.get(tenant);
    if (known) return known;
    const id = { tenant, log: this.o.log };
    const frontier = await this.o.store.frontier(id);
    const last = (await this.o.store.checkpoints(id)).at(-1);
    const s = {
      frontier,
      checkpointSize: last ? Number(last.size_text) : 0,
      checkpointAt: last ? Number(last.published_ms_text) : 0,
    };
    this.trees.set(tenant, s);
    return s;
  }

  /** Appends one tenant's records; resolves once the nodes (and a checkpoint, when due) are stored. */
  async append(tenant: string, records: readonly DigestRecord[], nowMs: number): Promise<void> {
    const s = await this.state(tenant);
    const id = { tenant, log: this.o.log };
    const next = s.frontier.clone();
    const nodes: (LeafRow | StoredNode)[] = [];
    for (const r of records) {
      for (let i = 0; i < r.row_hashes.length; i++) {
        const entryHash = r.row_hashes[i]!;
        const [leaf, ...above] = next.append(Buffer.from(entryHash, 'hex'));
        nodes.push(
          {
            ...leaf!,
            table: r.row_tables[i]!,
            rowId: r.row_ids[i]!,
            entryHash,
            hour: r.hour,
            batchId: r.batch_id,
          },
          ...above,
        );
      }
    }
    try {
      await this.o.store.appendNodes(id, nodes);
    } catch (err) {
      // It may have landed: read the tree back next time.
      this.trees.delete(tenant);
      throw err;
    }
    s.frontier = next;
    if (!this.o.signer || s.frontier.size === s.checkpointSize) return;
    const due =
      s.frontier.size - s.checkpointSize >= this.o.everyRows || nowMs - s.checkpointAt >= this.o.everySeconds * 1000;
    if (due) await this.checkpoint(id, s, nowMs);
  }

  /** Signs, stores and publishes a checkpoint of every tree that grew since its last one (shutdown, tests). */
  async flush(nowMs: number): Promise<void> {
    for (const [tenant, s] of this.trees) {
      if (this.o.signer && s.frontier.size > s.checkpointSize)
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
