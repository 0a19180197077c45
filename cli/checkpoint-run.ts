/**
 * What `tooltrail checkpoint keygen | verify` do (declared in checkpoint.ts, loaded when one runs). Exit codes: 0 ok,
 * 1 failed or a usage error.
 */
import { readFileSync } from 'node:fs';
import { LogConfigError, verifiersFrom } from '../audit/log/config.ts';
import { generateNoteKey } from '../audit/log/note.ts';
import { LogStore } from '../audit/log/store.ts';
import { verifyHeldCheckpoint } from '../audit/log/verify-log.ts';
import { createReadClickHouse } from '../platform/auth/read-clickhouse.ts';
import { schemaConfigFromEnv } from '../schema/config.ts';
import { loadServicesConfig } from '../services/config.ts';

function readNote(file: string, what: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch (err) {
    throw new LogConfigError(`cannot read ${what} ${file}: ${(err as Error).message}`);
  }
}

async function run(fn: () => Promise<number>): Promise<void> {
  try {
    process.exitCode = await fn();
  } catch (err) {
    if (err instanceof LogConfigError) {
      console.error(`tooltrail: ${err.message}`);
      process.exitCode = 1;
    } else throw err;
  }
}

/** `tooltrail checkpoint keygen`. */
export function keygen(flags: { name: string }): Promise<void> {
  return run(async () => {
    const k = generateNoteKey(flags.name);
    console.log(`signer (TOOLTRAIL_CHECKPOINT_KEY or a file for TOOLTRAIL_CHECKPOINT_KEY_FILE): ${k.signer}`);
    console.log(`verifier (TOOLTRAIL_CHECKPOINT_VERIFIERS, --key): ${k.verifier}`);
    return 0;
  });
}

/** `tooltrail checkpoint verify <file>`. */
export function verifyCheckpoint(
  file: string,
  flags: { later?: string; key: string[]; json?: boolean },
): Promise<void> {
  return run(async () => {
    const verifiers = verifiersFrom(flags.key);
    if (verifiers.length === 0)
      throw new LogConfigError('no trusted key: give --key or TOOLTRAIL_CHECKPOINT_VERIFIERS');
    const note = readNote(file, 'checkpoint');
    const later = flags.later ? readNote(flags.later, 'checkpoint') : undefined;
    const ch = createReadClickHouse(loadServicesConfig().clickhouse, process.env);
    try {
      const v = await verifyHeldCheckpoint(new LogStore(ch, schemaConfigFromEnv().database), note, verifiers, later);
      console.log(
        flags.json ? JSON.stringify(v, null, 2) : `${v.ok ? 'VERIFIED' : `FAILED (${v.reason})`}: ${v.statement}`,
      );
      return v.ok ? 0 : 1;
    } finally {
      await ch.close();
    }
  });
}
