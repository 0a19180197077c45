/**
 * Deletion requests (migration 0023): a tenant's rows of whole hours, erased by policy. The request is recorded
 * first, signed with the checkpoint key when the process holds it, and only then are the rows deleted, so a crash
 * in between leaves rows that verify as erased by policy, never rows missing without a reason.
 */
import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import type { ClickHouseClient } from '../platform/clickhouse.ts';
import type { SchemaConfig } from '../schema/config.ts';
import { type NoteSigner, type NoteVerifier, openNote, signNote } from './log/note.ts';
import { sqlFile } from './sql.ts';
import { decimal, rows } from './verify-query.ts';

export interface DeletionRequest {
  tenant: string;
  /** Whole hours: from inclusive, to exclusive. */
  from: Date;
  to: Date;
  requestedBy: string;
  reason: string;
}

export interface Deletion extends DeletionRequest {
  id: string;
  recordedAt: Date;
  keyId: string;
  note: string;
}

const HOUR_MS = 3_600_000;
/** The row tables a request erases: the ones the digests and the log cover. */
const DELETE_SQL = ['delete_tool_calls_of_range', 'delete_warnings_of_range', 'delete_spans_of_range'] as const;

export class DeletionError extends Error {}

/** Why a request cannot be recorded (whole hours, a reason, someone asking), or undefined. */
export function deletionProblem(r: DeletionRequest): string | undefined {
  const problems: string[] = [];
  if (Number.isNaN(r.from.getTime()) || Number.isNaN(r.to.getTime())) problems.push('from/to must be valid times');
  else {
    if (r.from.getTime() % HOUR_MS !== 0 || r.to.getTime() % HOUR_MS !== 0)
      problems.push('from/to must be whole hours (e.g. 2026-03-01T09:00Z): a request erases whole hours');
    if (r.from >= r.to) problems.push('from must be before to');
  }
  if (r.requestedBy.trim() === '') problems.push('requested by must not be empty');
  if (r.reason.trim() === '') problems.push('reason must not be empty');
  return problems.length > 0 ? problems.join('; ') : undefined;
}

/** The text a deletion's signature covers: every field, one line each (JSON strings: no newline can hide). */
export function deletionText(d: Omit<Deletion, 'keyId' | 'note'>): string {
  return `${[
    'tooltrail deletion v1',
    `id ${d.id}`,
    `tenant ${d.tenant}`,
    `from ${d.from.toISOString()}`,
    `to ${d.to.toISOString()}`,
    `requested_by ${JSON.stringify(d.requestedBy)}`,
    `reason ${JSON.stringify(d.reason)}`,
    `recorded_at ${d.recordedAt.toISOString()}`,
  ].join('\n')}\n`;
}

const chTime = (d: Date) => d.toISOString().slice(0, 23).replace('T', ' ');

/** A recorded request as reports and the CLI print it (ISO times, snake_case keys). */
export function deletionView(d: Deletion) {
  return {
    id: d.id,
    tenant: d.tenant,
    from: d.from.toISOString(),
    to: d.to.toISOString(),
    requested_by: d.requestedBy,
    reason: d.reason,
    recorded_at: d.recordedAt.toISOString(),
  };
}

/** Records the request (signed when a signer is given), then deletes its rows; returns the record. */
export async function deleteByRequest(
  ch: ClickHouseClient,
  schema: SchemaConfig,
  request: DeletionRequest,
  options: { signer?: NoteSigner | undefined; now?: () => Date } = {},
): Promise<Deletion> {
  const problem = deletionProblem(request);
  if (problem) throw new DeletionError(problem);
  if (schema.cluster) throw new DeletionError('deletion requests are not supported on the cluster variant yet');
  const base = { ...request, id: randomUUID(), recordedAt: options.now?.() ?? new Date() };
  const note = options.signer ? signNote(deletionText(base), options.signer) : '';
  const d: Deletion = { ...base, keyId: options.signer?.keyId ?? '', note };
  await ch.insert({
    table: `${schema.database}.audit_deletions`,
    format: 'JSONEachRow',
    values: [
      {
        tenant: d.tenant,
        deletion_id: d.id,
        range_from: chTime(d.from).slice(0, 19),
        range_to: chTime(d.to).slice(0, 19),
        requested_by: d.requestedBy,
        reason: d.reason,
        recorded_at: chTime(d.recordedAt),
        key_id: d.keyId,
        note: d.note,
      },
    ],
  });
  const params = {
    db: schema.database,
    tenant: d.tenant,
    from_s: d.from.getTime() / 1000,
    to_s: d.to.getTime() / 1000,
  };
  for (const name of DELETE_SQL)
    await ch.command({ query: sqlFile(name), query_params: params, clickhouse_settings: { mutations_sync: '1' } });
  return d;
}

const DeletionRow = z.object({
  tenant: z.string(),
  deletion_id: z.string(),
  from_s: decimal,
  to_s: decimal,
  requested_by: z.string(),
  reason: z.string(),
  recorded_ms: decimal,
  key_id: z.string(),
  note: z.string(),
});

/** The deletion records of a tenant ('' = every tenant) that overlap [fromS, toS). */
export async function deletionsOverlapping(
  ch: ClickHouseClient,
  db: string,
  tenant: string,
  fromS: number,
  toS: number,
): Promise<Deletion[]> {
  const found = await rows(ch, sqlFile('deletions_of_range'), { db, tenant, from_s: fromS, to_s: toS }, DeletionRow);
  return found.map((r) => ({
    tenant: r.tenant,
    id: r.deletion_id,
    from: new Date(Number(r.from_s) * 1000),
    to: new Date(Number(r.to_s) * 1000),
    requestedBy: r.requested_by,
    reason: r.reason,
    recordedAt: new Date(Number(r.recorded_ms)),
    keyId: r.key_id,
    note: r.note,
  }));
}

/**
 * Whether verify may honour a record: without trusted keys, every record (the report says they were not checked);
 * with them, only a record whose note is signed by one and says exactly what the row says.
 */
export function deletionTrust(
  d: Deletion,
  verifiers: readonly NoteVerifier[],
): { honoured: true; signed: boolean } | { honoured: false; why: string } {
  if (verifiers.length === 0) return { honoured: true, signed: false };
  if (d.note === '') return { honoured: false, why: 'it is not signed, and checkpoint keys were given' };
  const opened = openNote(d.note, verifiers);
  if (!opened.ok) return { honoured: false, why: `its signature does not verify: ${opened.message}` };
  if (opened.text !== deletionText(d)) return { honoured: false, why: 'its fields differ from the text it signed' };
  return { honoured: true, signed: true };
}
