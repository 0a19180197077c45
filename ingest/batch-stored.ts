/**
 * The ingest's "a batch was stored" hook. The writer calls `record` once ClickHouse acknowledged every insert of a
 * batch and before the batch is acknowledged upstream (Kafka offset commit, HTTP 200): if it throws, the batch is
 * retried and its rows deduplicate. The assembly (cli/) wires the audit's digest recorder to it; the ingest never
 * knows who listens.
 */
import type { BatchSource, StoredBatch } from '../schema/batch.ts';

export interface BatchStoredHook {
  /**
   * Optional: called before the insert with exactly the rows `record` will get, so work on them can overlap the
   * round trip; what it returns is handed back to `record` as `prepared`.
   */
  prepare?(source: BatchSource): unknown;
  record(stored: StoredBatch, batch?: { batchId?: string | undefined; prepared?: unknown }): Promise<unknown>;
}
