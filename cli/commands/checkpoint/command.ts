/**
 * `tooltrail checkpoint keygen` and `tooltrail checkpoint verify`: the Merkle log's signing keys and a checkpoint
 * held outside the database (a witness's copy) checked against the log as stored. Every option is declared here;
 * what a command does loads when it runs (run.ts). Exit codes: 0 ok, 1 failed or a usage error.
 */
import type { Command } from 'commander';
import type { CheckpointVerifyFlags } from './run.ts';

const run = () => import('./run.ts');
const collect = (v: string, all: string[]) => [...all, v];

export function registerCheckpointCommands(program: Command): void {
  const cmd = program.command('checkpoint').description("the Merkle log's signed checkpoints");
  cmd
    .command('keygen')
    .description('a new Ed25519 checkpoint key: the signer (keep it secret) and the verifier (publish it)')
    .requiredOption('--name <name>', 'key name, e.g. the host that runs the log (no spaces, no "+")')
    .action(async (flags: { name: string }) => (await run()).keygen(flags));
  cmd
    .command('verify [file]')
    .description(
      'check a checkpoint kept elsewhere (a file, or the newest of each log on the Kafka witness topic): its signature, the stored tree still holding its root, and consistency with the newest stored checkpoint (or --later)',
    )
    .option('--later <file>', 'check consistency with this later checkpoint instead of the newest stored one')
    .option(
      '--from-kafka',
      'read the newest checkpoint of each log from the Kafka witness topic (--topic, else TOOLTRAIL_WITNESS_KAFKA_TOPIC)',
    )
    .option('--topic <topic>', 'the Kafka witness topic (with --from-kafka)')
    .option('--tenant <tenant>', "with --from-kafka: only this tenant's logs")
    .option(
      '--key <verifier>',
      'a trusted verifier key (repeatable; default TOOLTRAIL_CHECKPOINT_VERIFIERS)',
      collect,
      [],
    )
    .option('--json', 'print the verdict as JSON')
    .action(async (file: string | undefined, flags: CheckpointVerifyFlags) =>
      (await run()).verifyCheckpoint(file, flags),
    );
}
