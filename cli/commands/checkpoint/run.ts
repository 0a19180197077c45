/**
 * What `tooltrail checkpoint keygen | verify` do (declared in command.ts, loaded when one runs). Exit codes: 0 ok,
 * 1 failed or a usage error.
 */
import { readFileSync } from 'node:fs';
import { kafkaWitnessOf, LogConfigError, verifiersFrom } from '../../../audit/log/config.ts';
import { latestWitnessed } from '../../../audit/log/kafka-witness.ts';
import { generateNoteKey } from '../../../audit/log/note.ts';
import { LogStore } from '../../../audit/log/store.ts';
import { verifyHeldCheckpoint } from '../../../audit/log/verify-log.ts';
import { createReadClickHouse } from '../../../platform/auth/read-clickhouse.ts';
import { schemaConfigFromEnv } from '../../../schema/config.ts';
import { loadServicesConfig } from '../../../services/config.ts';

export interface CheckpointVerifyFlags {
  later?: string;
  fromKafka?: boolean;
  topic?: string;
  tenant?: string;
  key: string[];
  json?: boolean;
}

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

/** `tooltrail checkpoint verify [<file>] [--from-kafka]`. */
export function verifyCheckpoint(file: string | undefined, flags: CheckpointVerifyFlags): Promise<void> {
  return run(async () => {
    const verifiers = verifiersFrom(flags.key);
    if (verifiers.length === 0)
      throw new LogConfigError('no trusted key: give --key or TOOLTRAIL_CHECKPOINT_VERIFIERS');
    if ((file === undefined) === (flags.fromKafka !== true))
      throw new LogConfigError('give a checkpoint file or --from-kafka (one of them)');
    const later = flags.later ? readNote(flags.later, 'checkpoint') : undefined;
    const notes = file !== undefined ? [readNote(file, 'checkpoint')] : await fromKafka(flags);
    const ch = createReadClickHouse(loadServicesConfig().clickhouse, process.env);
    try {
      const store = new LogStore(ch, schemaConfigFromEnv().database);
      const verdicts = [];
      for (const note of notes) verdicts.push(await verifyHeldCheckpoint(store, note, verifiers, later));
      if (flags.json) console.log(JSON.stringify(file !== undefined ? verdicts[0] : verdicts, null, 2));
      else for (const v of verdicts) console.log(`${v.ok ? 'VERIFIED' : `FAILED (${v.reason})`}: ${v.statement}`);
      return verdicts.every((v) => v.ok) ? 0 : 1;
    } finally {
      await ch.close();
    }
  });
}

/** The newest note of each log on the witness topic; none found is an error (nothing was checked). */
async function fromKafka(flags: CheckpointVerifyFlags): Promise<string[]> {
  const topic = flags.topic ?? process.env.TOOLTRAIL_WITNESS_KAFKA_TOPIC;
  if (!topic) throw new LogConfigError('--from-kafka needs --topic or TOOLTRAIL_WITNESS_KAFKA_TOPIC');
  let latest: Awaited<ReturnType<typeof latestWitnessed>>;
  try {
    latest = await latestWitnessed(kafkaWitnessOf(topic));
  } catch (err) {
    throw new LogConfigError((err as Error).message);
  }
  const notes = [...latest.values()].filter((c) => !flags.tenant || c.tenant === flags.tenant).map((c) => c.note);
  if (notes.length === 0)
    throw new LogConfigError(
      `the witness topic ${topic} holds no checkpoint${flags.tenant ? ` of tenant ${flags.tenant}` : ''}`,
    );
  return notes;
}
