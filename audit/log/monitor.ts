/**
 * The log watched between two `verify` runs, cheaply enough to run every minute: for each log, the newest stored
 * checkpoint must carry a trusted signature, still be the root of the stored tree, and extend the one before it
 * (RFC 9162, O(log n) nodes); and each witness's copy (the newest checkpoint the witness holds) must still be in
 * the tree and extended by the newest stored one. What fails is returned for the alerts (the assembly wires them).
 */
import type { NoteVerifier } from './note.ts';
import { logOfOrigin } from './origin.ts';
import type { LogStore } from './store.ts';
import { verifyHeldCheckpoint } from './verify-log.ts';

export interface ConsistencyProblem {
  tenant: string;
  log: string;
  size: number | null;
  kind: string;
  statement: string;
}

/** `witnessed`: the newest note each witness holds per log (e.g. from the Kafka topic), checked too. */
export async function checkNewestCheckpoints(
  store: LogStore,
  verifiers: readonly NoteVerifier[],
  o: { tenant?: string; witnessed?: readonly string[] } = {},
): Promise<ConsistencyProblem[]> {
  const problems: ConsistencyProblem[] = [];
  for (const id of await store.logs(o.tenant ?? '')) {
    const stored = await store.checkpoints(id);
    const [previous, newest] = stored.length >= 2 ? stored.slice(-2) : [undefined, stored.at(-1)];
    if (!newest) continue;
    // The previous checkpoint held against the newest: signatures, both roots in the tree, and the extension.
    const v = await verifyHeldCheckpoint(store, (previous ?? newest).note, verifiers, newest.note);
    if (!v.ok) problems.push({ ...id, size: Number(newest.size_text), kind: v.reason, statement: v.statement });
  }
  for (const note of o.witnessed ?? []) {
    const v = await verifyHeldCheckpoint(store, note, verifiers);
    if (!v.ok) {
      const id = logOfOrigin(note.split('\n')[0] ?? '') ?? { tenant: '', log: '' };
      if (!o.tenant || o.tenant === id.tenant)
        problems.push({ ...id, size: null, kind: v.reason, statement: `the witness's copy: ${v.statement}` });
    }
  }
  return problems;
}
