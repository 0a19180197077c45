/** A checkpoint's origin names its log: `<prefix>/<tenant>/<log>` (tenants and logs hold no `/`). */
import type { LogId } from './store.ts';

export function originOf(prefix: string, id: LogId): string {
  return `${prefix}/${id.tenant}/${id.log}`;
}

export function logOfOrigin(origin: string): LogId | undefined {
  const parts = origin.split('/');
  if (parts.length < 3) return undefined;
  const log = parts.at(-1)!;
  const tenant = parts.at(-2)!;
  return tenant && log ? { tenant, log } : undefined;
}
