/** What `tooltrail delete` does (declared in command.ts, loaded when it runs). */
import { userInfo } from 'node:os';
import { parseTimeOption } from '../../../audit/cli-support.ts';
import { DeletionError, deleteByRequest, deletionView } from '../../../audit/deletions.ts';
import { LogConfigError, logConfigFromEnv } from '../../../audit/log/config.ts';
import { InvalidIdError, parseId, TenantSchema } from '../../../contract/index.ts';
import { clickHouseOf } from '../../../platform/clickhouse.ts';
import { schemaConfigFromEnv } from '../../../schema/config.ts';
import { loadServicesConfig } from '../../../services/config.ts';

export interface DeleteFlags {
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

/** `tooltrail delete`: a usage error is one line and exit code 1. */
export async function deleteAction(flags: DeleteFlags): Promise<void> {
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
    const ch = clickHouseOf(svc.clickhouse);
    try {
      const d = await deleteByRequest(ch, schemaConfigFromEnv(), request, { signer });
      const view = {
        ...deletionView(d),
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
    if (!(err instanceof DeletionError || err instanceof LogConfigError || err instanceof InvalidIdError)) throw err;
    console.error(`tooltrail: ${err.message}`);
    process.exitCode = 1;
  }
}
