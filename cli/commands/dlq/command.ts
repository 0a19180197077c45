/**
 * `tooltrail dlq list|show|replay`: the dead letters of the ingest, for a person. An operator's command: it reads
 * the dead-letter topic with the ingest's Kafka settings (every tenant's letters). The logic is in ingest/dlq/. The
 * options are declared here; what a command does loads when it runs (run.ts).
 */
import type { Command } from 'commander';
import type { CommonFlags, DlqIo, ReplayFlags, SelectFlags } from './run.ts';

const run = () => import('./run.ts');

const defaultIo: DlqIo = {
  out: (l) => console.log(l),
  err: (l) => console.error(l),
  env: process.env,
  now: () => new Date(),
};

const collect = (v: string, prev: string[] = []) => [...prev, ...v.split(',').filter((s) => s !== '')];

function withSelection(c: Command): Command {
  return c
    .option('--reason <reason>', 'only this reason (repeat or comma-separate; see ingest/README.md)', collect)
    .option('--since <time>', 'dead-lettered at or after: 30m, 24h, 7d (ago), or ISO 8601')
    .option('--until <time>', 'dead-lettered before: 30m, 24h, 7d (ago), now, or ISO 8601');
}

function withCommon(c: Command): Command {
  return c
    .option('--dlq-topic <name>', 'the dead-letter topic (env TOOLTRAIL_INGEST_DLQ_TOPIC; default otlp_spans_dlq)')
    .option('--json', 'print JSON');
}

export function registerDlqCommands(program: Command, io: DlqIo = defaultIo): void {
  const dlq = program
    .command('dlq')
    .description("the ingest's dead letters: list them, show one, replay them once the cause is fixed");
  withCommon(withSelection(dlq.command('list').description('the letters, oldest first, with reason and state'))).action(
    async (flags: SelectFlags) => (await run()).list(flags, io),
  );
  withCommon(
    dlq
      .command('show <id>')
      .description('one letter (its id is partition:offset, from `dlq list`): headers, reason, source, spans'),
  ).action(async (id: string, flags: CommonFlags) => (await run()).show(id, flags, io));
  withCommon(
    withSelection(
      dlq
        .command('replay [ids...]')
        .description(
          'publish letters again to their source topic, for the ingest to store (a letter is replayed once)',
        ),
    ),
  )
    .option('--all', 'every letter not replayed yet (when no id, --reason, --since or --until is given)')
    .option('--force', 'also letters already replayed (the ingest still leaves out recent copies)')
    .option('--to-topic <name>', "publish to this topic instead of each letter's source topic")
    .action(async (ids: string[], flags: ReplayFlags) => (await run()).replay(ids, flags, io));
}
