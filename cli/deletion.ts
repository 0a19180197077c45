/**
 * `tooltrail delete`: a tenant's deletion request carried out by policy. The request (who, when, which hours, why)
 * is recorded in audit_deletions, signed with the checkpoint key when one is configured, and then the rows are
 * deleted; `tooltrail verify` reports those hours as expired by policy instead of as deleted rows.
 */
import { userInfo } from 'node:os';
import type { Command } from 'commander';
import { parseTimeOption } from '../audit/cli-support.ts';
import { DeletionError, deleteByRequest } from '../audit/deletions.ts';
import { LogConfigError, logConfigFromEnv } from '../audit/log/config.ts';
import { InvalidIdError, parseId, TenantSchema } from '../contract/ids.ts';
import { createClickHouse } from '../platform/clickhouse.ts';
import { schemaConfigFromEnv } from '../schema/config.ts';
import { loadServicesConfig } from '../services/config.ts';

interface DeleteFlags {
  tenant: string;
  from: string;
  to: string;
  by?: string;
  reason: string;
  json?: boolean;
}

function time(value: string, now: Date, flag: string): Date {
  try {
    return parseTimeOption(value, now);
  } catch (err) {
    throw new DeletionError(`${flag}: ${(err as Error).message}`);
  }
}

export function registerDeletionCommand(program: Command): void {
  program
    .command('delete')
    .description(
      "erase a tenant's rows of whole hours by a recorded deletion request (verify then reports them as expired by policy)",
    )
    .requiredOption('--tenant <tenant>', 'the tenant whose rows are erased')
    .requiredOption('--from <time>', 'first hour erased, a whole hour (ISO 8601, e.g. 2026-03-01T09:00Z)')
    .requiredOption('--to <time>', 'end of the range, exclusive, a whole hour')
    .requiredOption('--reason <why>', 'why, e.g. the request ticket')
    .option('--by <who>', 'who asked (default: $TOOLTRAIL_USER or the OS user)')
    .option('--json', 'print the recorded request as JSON')
    .action(async (flags: DeleteFlags) => {
      try {
        const now = new Date();
        const request = {
          tenant: parseId(TenantSchema, flags.tenant, '--tenant'),
          from: time(flags.from, now, '--from'),
          to: time(flags.to, now, '--to'),
          requestedBy: flags.by ?? process.env.TOOLTRAIL_USER ?? userInfo().username,
          reason: flags.reason,
        };
        const signer = logConfigFromEnv().signer;
        const svc = loadServicesConfig();
        const ch = createClickHouse({
          url: svc.clickhouse.url,
          user: svc.clickhouse.user,
          password: svc.clickhouse.password,
          tls: svc.clickhouse.tls,
        });
        try {
          const d = await deleteByRequest(ch, schemaConfigFromEnv(), request, { signer });
          const view = {
            id: d.id,
            tenant: d.tenant,
            from: d.from.toISOString(),
            to: d.to.toISOString(),
            requested_by: d.requestedBy,
            reason: d.reason,
            recorded_at: d.recordedAt.toISOString(),
            signed: d.note !== '',
          };
          console.log(
            flags.json
              ? JSON.stringify(view, null, 2)
              : `deletion ${d.id} recorded${view.signed ? ' and signed' : ' (unsigned: no TOOLTRAIL_CHECKPOINT_KEY)'}; rows of ${d.tenant} ${view.from} -> ${view.to} erased`,
          );
        } finally {
          await ch.close();
        }
      } catch (err) {
        if (!(err instanceof DeletionError || err instanceof LogConfigError || err instanceof InvalidIdError))
          throw err;
        console.error(`tooltrail: ${err.message}`);
        process.exitCode = 1;
      }
    });
}
