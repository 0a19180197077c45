/**
 * Owners of tools, agents and warning (code, source) pairs: an append-only change log (owner_changes) with who,
 * when and why; the `owners` view is the current assignment of each subject.
 */
import { z } from 'zod';
import type { ClickHouseClient } from '../../platform/clickhouse.ts';
import { sqlFiles } from '../../platform/sql-files.ts';
import { chTimeToIso } from '../detectors/rows.ts';
import { chTime, table } from '../identifiers.ts';
import { SUBJECT_KINDS, type SubjectKind } from './subject-kinds.ts';

const sql = sqlFiles(new URL('./sql/', import.meta.url));

export { SUBJECT_KINDS, type SubjectKind };

/** What an owner owns. Warnings: subject = code (or `*` for every code of the source), source = the source. */
export interface Subject {
  /** '' = every tenant. */
  tenant: string;
  kind: SubjectKind;
  subject: string;
  source: string;
}

export interface OwnerAssignment extends Subject {
  owner: string;
  team: string;
  assigned_at: string;
  assigned_by: string;
  reason: string;
}

export interface ChangeMeta {
  by: string;
  reason: string;
  at: Date;
}

const OwnerRow = z.object({
  tenant: z.string(),
  subject_kind: z.enum(SUBJECT_KINDS),
  subject: z.string(),
  source: z.string(),
  owner: z.string(),
  team: z.string(),
  assigned_at: z.string().transform(chTimeToIso),
  assigned_by: z.string(),
  reason: z.string(),
});

function checkSubject(s: Subject): void {
  if (s.subject === '') throw new Error('an owner needs a subject (tool name, agent name or warning code)');
  if (s.kind === 'warning' && s.source === '') throw new Error('a warning owner needs the warning source');
  if (s.kind !== 'warning' && s.source !== '') throw new Error(`a ${s.kind} owner takes no source`);
}

export async function setOwner(
  ch: ClickHouseClient,
  database: string,
  subject: Subject,
  owner: { owner: string; team: string },
  meta: ChangeMeta,
): Promise<void> {
  checkSubject(subject);
  if (owner.owner.trim() === '') throw new Error('owner must not be empty');
  if (meta.by.trim() === '') throw new Error('who made the change (--by) must not be empty');
  await recordChange(ch, database, subject, { action: 'set', ...owner }, meta);
}

export async function removeOwner(
  ch: ClickHouseClient,
  database: string,
  subject: Subject,
  meta: ChangeMeta,
): Promise<void> {
  checkSubject(subject);
  await recordChange(ch, database, subject, { action: 'remove', owner: '', team: '' }, meta);
}

/** One row of the append-only change log. */
async function recordChange(
  ch: ClickHouseClient,
  database: string,
  subject: Subject,
  change: { action: 'set' | 'remove'; owner: string; team: string },
  meta: ChangeMeta,
): Promise<void> {
  await ch.insert({
    table: table(database, 'owner_changes'),
    format: 'JSONEachRow',
    values: [
      {
        tenant: subject.tenant,
        subject_kind: subject.kind,
        subject: subject.subject,
        source: subject.source,
        action: change.action,
        owner: change.owner,
        team: change.team,
        changed_by: meta.by,
        changed_at: chTime(meta.at),
        reason: meta.reason,
      },
    ],
  });
}

/** Current owners; with a tenant, that tenant's and the every-tenant ('') ones. */
export async function listOwners(ch: ClickHouseClient, database: string, tenant = ''): Promise<OwnerAssignment[]> {
  const rs = await ch.query({
    query: sql('current_owners'),
    query_params: { db: database, tenant },
    format: 'JSONEachRow',
  });
  return (await rs.json<unknown>()).map((r) => {
    const row = OwnerRow.parse(r);
    const { subject_kind, ...rest } = row;
    return { ...rest, kind: subject_kind };
  });
}

export interface OwnerChange extends Subject {
  action: 'set' | 'remove';
  owner: string;
  team: string;
  changed_by: string;
  changed_at: string;
  reason: string;
}

/** The whole owner change log, oldest first. */
export async function ownerHistory(ch: ClickHouseClient, database: string): Promise<OwnerChange[]> {
  const rs = await ch.query({
    query: sql('owner_change_log'),
    query_params: { db: database },
    format: 'JSONEachRow',
  });
  const Row = z.object({
    tenant: z.string(),
    subject_kind: z.enum(SUBJECT_KINDS),
    subject: z.string(),
    source: z.string(),
    action: z.enum(['set', 'remove']),
    owner: z.string(),
    team: z.string(),
    changed_by: z.string(),
    changed_at: z.string().transform(chTimeToIso),
    reason: z.string(),
  });
  return (await rs.json<unknown>()).map((r) => {
    const { subject_kind, ...rest } = Row.parse(r);
    return { ...rest, kind: subject_kind };
  });
}
