/**
 * The chain half of `verify`: every digest record in range must hash to its digest_hash, link to its predecessor
 * and be linked to by its successor, with no seq missing or doubled; with a key, its signature must verify. Late
 * batches (recorded after their hour closed) are listed as backfill: explicit, not failures.
 */
import { z } from 'zod';
import type { ClickHouseClient } from '../platform/clickhouse.ts';
import { type DigestHeader, digestHash, keyId, signatureValid } from './chain.ts';
import type { Backfill, ChainHead } from './report.ts';
import { sqlFile } from './sql.ts';
import { decimal, type IssueSink, isoOf, push, rows } from './verify-query.ts';

const ChainRow = z.object({
  tenant: z.string(),
  chain: z.string(),
  seq_text: decimal,
  hour_text: decimal,
  batch_id: z.string(),
  recorded_ms_text: decimal,
  backfill: z.boolean(),
  canonical_version: z.coerce.number(),
  row_count: z.coerce.number(),
  rows_hash: z.string(),
  previous_hash: z.string(),
  digest_hash: z.string(),
  signature: z.string(),
  key_id: z.string(),
  in_range: z.union([z.boolean(), z.number()]).transform((v) => v === true || v === 1),
});
type ChainRecord = z.infer<typeof ChainRow>;

const HeadRow = z.object({
  tenant: z.string(),
  chain: z.string(),
  head_seq: decimal,
  head_hash: z.string(),
  head_recorded_ms: decimal,
});

/** Walks the chain records of the range and their neighbours; returns the backfill seen and the chain heads. */
export async function verifyChain(
  ch: ClickHouseClient,
  range: { db: string; tenant: string; from_s: number; to_s: number },
  key: string | undefined,
  issue: IssueSink,
): Promise<{ backfill: Backfill[]; chains: ChainHead[] }> {
  const { db, tenant } = range;
  const backfill: Backfill[] = [];
  const chainRows = await rows(ch, sqlFile('chain_records'), range, ChainRow);
  const heads = await rows(ch, sqlFile('chain_heads'), { db, tenant }, HeadRow);
  const headSeq = new Map(heads.map((x) => [`${x.tenant}\u0000${x.chain}`, Number(x.head_seq)]));
  const bySeq = new Map<string, ChainRecord[]>();
  for (const r of chainRows) push(bySeq, `${r.tenant}\u0000${r.chain}\u0000${r.seq_text}`, r);
  const get = (r: ChainRecord, seq: number) => bySeq.get(`${r.tenant}\u0000${r.chain}\u0000${seq}`) ?? [];
  const forks = new Set<string>();
  const checkedLinks = new Set<string>();
  const ourKeyId = key ? keyId(key) : '';
  for (const r of chainRows) {
    if (!r.in_range) continue;
    const seq = Number(r.seq_text);
    const hourIso = isoOf(Number(r.hour_text));
    const at = { tenant: r.tenant, hour: hourIso, chain: r.chain, seq, batch_id: r.batch_id };
    const here = get(r, seq);
    if (here.length > 1 && !forks.has(`${r.tenant}\u0000${r.chain}\u0000${seq}`)) {
      forks.add(`${r.tenant}\u0000${r.chain}\u0000${seq}`);
      issue({
        kind: 'chain_fork',
        ...at,
        statement: `${here.length} digest records share ${r.chain}#${seq}: two writers used one chain, or a record was forged`,
      });
    }
    const header: DigestHeader = {
      tenant: r.tenant,
      chain: r.chain,
      seq,
      hour: Number(r.hour_text),
      batch_id: r.batch_id,
      recorded_at_ms: Number(r.recorded_ms_text),
      backfill: r.backfill,
      canonical_version: r.canonical_version,
      row_count: r.row_count,
      rows_hash: r.rows_hash,
      previous_hash: r.previous_hash,
    };
    if (digestHash(header) !== r.digest_hash) {
      issue({
        kind: 'digest_altered',
        ...at,
        statement: `digest record ${r.chain}#${seq} was edited: its fields no longer hash to its digest_hash`,
      });
    }
    if (key) {
      if (!r.signature)
        issue({ kind: 'signature_missing', ...at, statement: `digest record ${r.chain}#${seq} is not signed` });
      else if (r.key_id !== ourKeyId || !signatureValid(key, r.digest_hash, r.signature)) {
        issue({
          kind: 'signature_invalid',
          ...at,
          statement:
            r.key_id !== ourKeyId
              ? `digest record ${r.chain}#${seq} is signed with another key (key id ${r.key_id})`
              : `digest record ${r.chain}#${seq} has a signature that does not verify`,
        });
      }
    }
    // Links: to the predecessor, and from the successor (a record edited and re-hashed breaks the latter).
    if (seq === 1) {
      if (r.previous_hash !== '')
        issue({ kind: 'chain_broken', ...at, statement: `the first record of chain ${r.chain} names a predecessor` });
    } else {
      const prev = get(r, seq - 1);
      if (prev.length === 0) {
        issue({
          kind: 'digest_missing',
          ...at,
          seq: seq - 1,
          batch_id: null,
          statement: `digest record ${r.chain}#${seq - 1} is missing: deleted`,
        });
      } else link(prev, [r]);
    }
    const next = get(r, seq + 1);
    const head = headSeq.get(`${r.tenant}\u0000${r.chain}`) ?? seq;
    if (next.length > 0) link([r], next);
    else if (seq < head) {
      issue({
        kind: 'digest_missing',
        ...at,
        seq: seq + 1,
        batch_id: null,
        statement: `digest record ${r.chain}#${seq + 1} is missing: deleted`,
      });
    }
    if (r.backfill) {
      backfill.push({
        tenant: r.tenant,
        hour: hourIso,
        chain: r.chain,
        seq,
        batch_id: r.batch_id,
        recorded_at: new Date(Number(r.recorded_ms_text)).toISOString(),
        rows: r.row_count,
        late_by_seconds: Math.max(0, Math.round(Number(r.recorded_ms_text) / 1000 - (Number(r.hour_text) + 3600))),
      });
    }
  }

  function link(prevs: ChainRecord[], nexts: ChainRecord[]): void {
    for (const p of prevs) {
      for (const n of nexts) {
        const k = `${n.tenant}\u0000${n.chain}\u0000${n.seq_text}\u0000${p.digest_hash}\u0000${n.previous_hash}`;
        if (checkedLinks.has(k)) continue;
        checkedLinks.add(k);
        if (n.previous_hash !== p.digest_hash) {
          issue({
            kind: 'chain_broken',
            tenant: n.tenant,
            hour: isoOf(Number(n.hour_text)),
            chain: n.chain,
            seq: Number(n.seq_text),
            batch_id: n.batch_id,
            statement: `digest record ${n.chain}#${n.seq_text} does not link to ${p.chain}#${p.seq_text}: one of them was altered or replaced`,
          });
        }
      }
    }
  }

  const chains: ChainHead[] = heads.map((x) => ({
    tenant: x.tenant,
    chain: x.chain,
    seq: Number(x.head_seq),
    digest_hash: x.head_hash,
    recorded_at: new Date(Number(x.head_recorded_ms)).toISOString(),
  }));
  return { backfill, chains };
}
