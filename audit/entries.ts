/**
 * The per-row half of a digest: one `(table, id, sha256(canonical row))` entry per stored row, grouped per tenant
 * and hour. Pure and thread-agnostic: the recorder runs it on the main thread or in the digest worker
 * (digest-worker.ts), which must give byte-identical entries.
 */
import type { BatchRows } from '../schema/batch.ts';
import { CANONICAL_VERSION, entryHash, hourOf, TABLE_SPECS, type TableSpec, valuesOf } from './canonical.ts';
import type { DigestEntry } from './chain.ts';

/** The rows of one stored batch, per table, keyed by column name (schema/rows.ts `Rows` fits). */
export type StoredRows = BatchRows;

/** Entries per tenant, per hour (structured-cloneable: they cross from the worker as they are). */
export type EntriesByTenant = Map<string, Map<number, DigestEntry[]>>;

function rowsBySpec(rows: StoredRows, spec: TableSpec): readonly object[] {
  return spec.table === 'tool_calls' ? rows.toolCalls : spec.table === 'spans' ? rows.spans : rows.warnings;
}

/**
 * Entries per tenant, per hour, hashed in canonical `version` (the digest records before the log: 1). Warning rows
 * are grouped per (tenant, hour, span) into one entry.
 */
export function digestEntries(rows: StoredRows, version = CANONICAL_VERSION): EntriesByTenant {
  const out: EntriesByTenant = new Map();
  const add = (tenant: string, hour: number, e: DigestEntry) => {
    const hours = out.get(tenant) ?? new Map<number, DigestEntry[]>();
    out.set(tenant, hours);
    const list = hours.get(hour) ?? [];
    hours.set(hour, list);
    list.push(e);
  };
  for (const spec of TABLE_SPECS) {
    const groups = new Map<string, { tenant: string; hour: number; id: string; rows: unknown[][] }>();
    for (const obj of rowsBySpec(rows, spec)) {
      const row = obj as Record<string, unknown>;
      const tenant = String(row[spec.tenant] ?? '');
      const hour = hourOf(row[spec.time]);
      const id = String(row[spec.id] ?? '');
      if (spec.table !== 'tool_call_warnings') {
        add(tenant, hour, { table: spec.table, id, hash: entryHash(spec, [valuesOf(spec, row)], version) });
        continue;
      }
      const k = `${tenant}\u0000${hour}\u0000${id}`;
      const g = groups.get(k) ?? { tenant, hour, id, rows: [] };
      groups.set(k, g);
      g.rows.push(valuesOf(spec, row));
    }
    for (const g of groups.values())
      add(g.tenant, g.hour, { table: spec.table, id: g.id, hash: entryHash(spec, g.rows, version) });
  }
  return out;
}
