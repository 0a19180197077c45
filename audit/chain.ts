/**
 * Digest records and their chain (row_digests). A record's `digest_hash` covers its own fields and the previous
 * record's hash, so changing or removing a record breaks the link to its successor; `rows_hash` binds the per-row
 * hashes into it. With a key, `signature` = HMAC(key, digest_hash): without the key nobody can rebuild a valid chain.
 * The writer no longer records them (the Merkle log is the record, audit/README.md); verify checks the records
 * written before, and `sealRecord` writes such records for the tests of that check (testkit/audit-log.ts).
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

/** (table, id, hash) order; a record holds ~100k entries, so equal fields are skipped before comparing. */
function compareEntries(a: DigestEntry, b: DigestEntry): number {
  if (a.table !== b.table) return a.table < b.table ? -1 : 1;
  if (a.id !== b.id) return a.id < b.id ? -1 : 1;
  return a.hash < b.hash ? -1 : a.hash > b.hash ? 1 : 0;
}

const INDEX_BITS = 2 ** 17;

/** The first 8 characters of a lower-case hex id as a number (their string order), or -1. */
function hexPrefix(id: string): number {
  if (id.length < 8) return -1;
  let v = 0;
  for (let i = 0; i < 8; i++) {
    const c = id.charCodeAt(i);
    const d = c >= 48 && c <= 57 ? c - 48 : c >= 97 && c <= 102 ? c - 87 : -1;
    if (d < 0) return -1;
    v = v * 16 + d;
  }
  return v;
}

/**
 * The entries in (table, id, hash) order. Ids are span ids (lower-case hex): entries are ordered by a number (table
 * rank, first 8 hex digits of the id, index) in a typed array, ~5x faster than comparing strings for a record's
 * ~100k entries; runs sharing those digits are finished by comparing strings. Other ids: compared as strings.
 */
export function sortEntries(entries: DigestEntry[]): DigestEntry[] {
  const n = entries.length;
  if (n < 64 || n >= INDEX_BITS) return entries.slice().sort(compareEntries);
  const tables: string[] = [];
  for (const e of entries) if (!tables.includes(e.table)) tables.push(e.table);
  if (tables.length > 4) return entries.slice().sort(compareEntries);
  tables.sort();
  const keys = new Float64Array(n);
  let lastTable = '';
  let lastRank = 0;
  for (let i = 0; i < n; i++) {
    const e = entries[i]!;
    const prefix = hexPrefix(e.id);
    if (prefix < 0) return entries.slice().sort(compareEntries);
    if (e.table !== lastTable) {
      lastTable = e.table;
      lastRank = tables.indexOf(lastTable);
    }
    // rank (2 bits) + prefix (32 bits) + index (17 bits) < 2^53: exact.
    keys[i] = (lastRank * 4294967296 + prefix) * INDEX_BITS + i;
  }
  keys.sort();
  const out = new Array<DigestEntry>(n);
  for (let i = 0; i < n; i++) out[i] = entries[keys[i]! % INDEX_BITS]!;
  // Equal (table, prefix) keys were ordered by index: order each such run by the full comparison.
  for (let i = 0; i < n; ) {
    const group = Math.floor(keys[i]! / INDEX_BITS);
    let j = i + 1;
    while (j < n && Math.floor(keys[j]! / INDEX_BITS) === group) j++;
    if (j - i > 1) {
      const run = out.slice(i, j).sort(compareEntries);
      for (let k = 0; k < run.length; k++) out[i + k] = run[k]!;
    }
    i = j;
  }
  return out;
}

/** SHA-256 of the entries' `table\tid\thash` lines joined by newlines, fed in chunks (no one ~10 MB string). */
function rowsHashOfSorted(sorted: readonly DigestEntry[]): string {
  const h = createHash('sha256');
  for (let i = 0; i < sorted.length; i += 2048) {
    const lines = sorted
      .slice(i, i + 2048)
      .map((e) => `${e.table}\t${e.id}\t${e.hash}`)
      .join('\n');
    h.update(i === 0 ? lines : `\n${lines}`);
  }
  return h.digest('hex');
}

/** Over the entries in (table, id, hash) order, whatever order they are given in. */
export function rowsHash(entries: DigestEntry[]): string {
  return rowsHashOfSorted(sortEntries(entries));
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
  const full: DigestHeader = { ...header, row_count: sorted.length, rows_hash: rowsHashOfSorted(sorted) };
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
