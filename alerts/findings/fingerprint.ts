/**
 * Stable fingerprints: a hash of what identifies the thing found, never of when or by whom it was found, so every
 * evaluator run (and every restart) gives the same finding the same fingerprint and the same alert labels.
 */
import { createHash } from 'node:crypto';
import type { FindingKind } from './finding.ts';

/** mutation kinds: (tenant, trace_id, mutation span id); rates: (tenant, tool, reason); warnings: (tenant, code, source). */
export function fingerprint(kind: FindingKind, tenant: string, ...identity: string[]): string {
  return createHash('sha256')
    .update(JSON.stringify([kind, tenant, ...identity]))
    .digest('hex')
    .slice(0, 16);
}
