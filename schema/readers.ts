/**
 * Readers' row schemas, derived from the table definition (schema/tables.ts): a column as ClickHouse's JSON output
 * prints it (64-bit integers quoted as decimal text, Bool as true/false, times as text), checked with zod at the
 * reader's edge. A reader picks the columns it selects by name and adds what its SQL computes.
 */
import { z } from 'zod';
import type { TableDefinition } from './tables.ts';

const decimal = z.string().regex(/^-?\d+$/);

type Column<T extends TableDefinition> = T['columns'][number];
type Readable<T extends TableDefinition> = Extract<Column<T>, readonly [string, string, string, 'sent' | 'derived']>;
type TypeOf<T extends TableDefinition, N extends string> = Extract<Column<T>, readonly [N, string, string, string]>[1];

/** The zod type of a ClickHouse column type in JSON output. */
type ReaderOf<Type extends string> = Type extends `Nullable(${string}`
  ? z.ZodNullable<z.ZodString>
  : Type extends `Array(Map(${string}`
    ? z.ZodArray<z.ZodRecord<z.ZodString, z.ZodString>>
    : Type extends `Array(${string}`
      ? z.ZodArray<z.ZodString>
      : Type extends `Map(${string}`
        ? z.ZodRecord<z.ZodString, z.ZodString>
        : Type extends 'Bool'
          ? z.ZodBoolean
          : z.ZodString;

function readerOf(type: string): z.ZodType {
  if (type.startsWith('Nullable(')) return decimal.nullable();
  if (type.startsWith('Array(Map(')) return z.array(z.record(z.string(), z.string()));
  if (type.startsWith('Array(')) return z.array(z.string());
  if (type.startsWith('Map(')) return z.record(z.string(), z.string());
  if (type === 'Bool') return z.boolean();
  if (type === 'UInt64' || type === 'Int64') return decimal;
  return z.string();
}

/** The zod shape of the named columns of a table, for a reader's `z.object({...})`. */
export function readerShape<T extends TableDefinition, const N extends Readable<T>[0]>(
  table: T,
  names: readonly N[],
): { [K in N]: ReaderOf<TypeOf<T, K>> } {
  const shape: Record<string, z.ZodType> = {};
  for (const name of names) {
    const column = table.columns.find((c) => c[0] === name);
    if (!column || column[3] === 'server') throw new Error(`schema: ${table.name} has no readable column ${name}`);
    shape[name] = readerOf(column[1]);
  }
  return shape as { [K in N]: ReaderOf<TypeOf<T, K>> };
}
