/**
 * Digest records and their chain. A record's `digest_hash` covers its own fields and the previous record's hash,
 * so changing or removing a record breaks the link to its successor; `rows_hash` binds the per-row hashes into it.
 * With a key, `signature` = HMAC(key, digest_hash): without the key nobody can rebuild a valid chain.
 */
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import { sha256 } from './canonical.ts';

export interface DigestEntry {
  table: string;
  id: string;
  hash: string;
}

/** The fields `digest_hash` covers. */
export interface DigestHeader {
  tenant: string;
  chain: string;
  seq: number;
  /** Unix seconds of the hour's start. */
  hour: number;
  batch_id: string;
  recorded_at_ms: number;
  backfill: boolean;
  canonical_version: number;
  row_count: number;
  rows_hash: string;
  previous_hash: string;
}

export interface DigestRecord extends DigestHeader {
  row_tables: string[];
  row_ids: string[];
  row_hashes: string[];
  digest_hash: string;
  signature: string;
  key_id: string;
}

export function sortEntries(entries: DigestEntry[]): DigestEntry[] {
  const cmp = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
  return [...entries].sort((a, b) => cmp(a.table, b.table) || cmp(a.id, b.id) || cmp(a.hash, b.hash));
}

/** Over the entries in (table, id, hash) order, whatever order they are given in. */
export function rowsHash(entries: DigestEntry[]): string {
  return sha256(
    sortEntries(entries)
      .map((e) => `${e.table}\t${e.id}\t${e.hash}`)
      .join('\n'),
  );
}

export function digestHash(h: DigestHeader): string {
  return sha256(
    JSON.stringify([
      'tooltrail.digest.v1',
      h.tenant,
      h.chain,
      h.seq,
      h.hour,
      h.batch_id,
      h.recorded_at_ms,
      h.backfill,
      h.canonical_version,
      h.row_count,
      h.rows_hash,
      h.previous_hash,
    ]),
  );
}

/** Identifies a key without revealing it. */
export function keyId(key: string): string {
  return createHash('sha256').update(key).digest('hex').slice(0, 16);
}

export function sign(key: string, digest: string): string {
  return createHmac('sha256', key).update(digest).digest('hex');
}

export function signatureValid(key: string, digest: string, signature: string): boolean {
  const expected = Buffer.from(sign(key, digest), 'hex');
  const given = Buffer.from(signature, 'hex');
  return given.length === expected.length && timingSafeEqual(given, expected);
}

/** A complete record: entries sorted, hashes computed, signed when a key is given. */
export function sealRecord(
  header: Omit<DigestHeader, 'rows_hash' | 'row_count'>,
  entries: DigestEntry[],
  key?: string,
): DigestRecord {
  const sorted = sortEntries(entries);
  const full: DigestHeader = { ...header, row_count: sorted.length, rows_hash: rowsHash(sorted) };
  const digest = digestHash(full);
  return {
    ...full,
    row_tables: sorted.map((e) => e.table),
    row_ids: sorted.map((e) => e.id),
    row_hashes: sorted.map((e) => e.hash),
    digest_hash: digest,
    signature: key ? sign(key, digest) : '',
    key_id: key ? keyId(key) : '',
  };
}
