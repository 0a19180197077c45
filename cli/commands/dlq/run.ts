/** What `tooltrail dlq list | show | replay` do (declared in command.ts, loaded when one runs). */
import { parseTimeOption } from '../../../audit/cli-support.ts';
import { IngestConfigError, loadIngestConfig } from '../../../ingest/config.ts';
import { DEAD_LETTER_REASONS, isDeadLetterReason } from '../../../ingest/dead-letter.ts';
import { readLetters, replayLetters, summarizeLetter } from '../../../ingest/dlq/index.ts';
import { createIdempotentProducer, createKafkaClient, isKafkaClientError } from '../../../platform/kafka/index.ts';

export interface DlqIo {
  out(line: string): void;
  err(line: string): void;
  env: NodeJS.ProcessEnv;
  now(): Date;
}

export interface CommonFlags {
  dlqTopic?: string;
  json?: boolean;
}

export interface SelectFlags extends CommonFlags {
  reason?: string[];
  since?: string;
  until?: string;
}

export interface ReplayFlags extends SelectFlags {
  all?: boolean;
  force?: boolean;
  toTopic?: string;
}

class DlqUsageError extends Error {
  override name = 'DlqUsageError';
}

/** A usage error is one line and exit code 2; Kafka out of reach, one line and exit code 1; anything else is a bug. */
async function guarded(io: DlqIo, f: () => Promise<number>): Promise<void> {
  try {
    process.exitCode = await f();
  } catch (err) {
    if (err instanceof DlqUsageError || err instanceof IngestConfigError) {
      io.err(`tooltrail dlq: ${err.message}`);
      process.exitCode = 2;
      return;
    }
    if (isKafkaClientError(err)) {
      const cause =
        err.cause instanceof Error && !err.message.includes(err.cause.message) ? `: ${err.cause.message}` : '';
      io.err(
        `tooltrail dlq: Kafka: ${err.message}${cause} (is it running? \`tooltrail services up\`, or TOOLTRAIL_KAFKA_BROKERS)`,
      );
      process.exitCode = 1;
      return;
    }
    throw err;
  }
}

/** `tooltrail dlq list`. */
export function list(flags: SelectFlags, io: DlqIo): Promise<void> {
  return guarded(io, () => runList(flags, io));
}

/** `tooltrail dlq show`. */
export function show(id: string, flags: CommonFlags, io: DlqIo): Promise<void> {
  return guarded(io, () => runShow(id, flags, io));
}

/** `tooltrail dlq replay`. */
export function replay(ids: string[], flags: ReplayFlags, io: DlqIo): Promise<void> {
  return guarded(io, () => runReplay(ids, flags, io));
}

/** A time flag: `30m`/`24h`/`7d` ago (or `-24h`), `now`, or ISO 8601. */
function timeFlag(name: string, value: string | undefined, now: Date): Date | undefined {
  if (value === undefined) return undefined;
  try {
    return parseTimeOption(/^\d+[mhd]$/.test(value) ? `-${value}` : value, now);
  } catch (err) {
    throw new DlqUsageError(`${name}: ${(err as Error).message}`);
  }
}

function open(flags: CommonFlags, io: DlqIo) {
  const config = loadIngestConfig(flags.dlqTopic !== undefined ? { deadLetterTopic: flags.dlqTopic } : {}, io.env);
  const kafka = createKafkaClient({
    brokers: config.kafka.brokers,
    clientId: 'tooltrail-dlq',
    security: { tls: config.kafka.tls, sasl: config.kafka.sasl },
    quiet: true,
    retries: 2,
  });
  return { kafka, topic: config.kafka.deadLetterTopic };
}

function selection(flags: SelectFlags, io: DlqIo, ids?: string[]) {
  for (const id of ids ?? []) {
    if (!/^\d+:\d+$/.test(id)) throw new DlqUsageError(`letter id ${JSON.stringify(id)}: use partition:offset`);
  }
  const since = timeFlag('--since', flags.since, io.now());
  const until = timeFlag('--until', flags.until, io.now());
  return {
    ...(flags.reason && flags.reason.length > 0 ? { reasons: flags.reason } : {}),
    ...(since ? { since } : {}),
    ...(until ? { until } : {}),
    ...(ids && ids.length > 0 ? { ids } : {}),
  };
}

function reasonCheck(flags: SelectFlags): void {
  for (const r of flags.reason ?? []) {
    if (!isDeadLetterReason(r)) {
      throw new DlqUsageError(`--reason ${JSON.stringify(r)}: one of ${DEAD_LETTER_REASONS.join(', ')}`);
    }
  }
}

const state = (l: { replayed: { at: Date; to: string } | undefined }) => (l.replayed ? 'replayed' : 'pending');

function source(l: {
  source: { topic?: string | undefined; partition?: number | undefined; offset?: string | undefined };
}) {
  return l.source.topic ? `${l.source.topic}[${l.source.partition ?? '?'}]@${l.source.offset ?? '?'}` : '-';
}

function table(rows: string[][]): string[] {
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
  return rows.map((r) => r.map((c, i) => (i === r.length - 1 ? c : c.padEnd(widths[i]!))).join('  '));
}

async function runList(flags: SelectFlags, io: DlqIo): Promise<number> {
  reasonCheck(flags);
  const filter = selection(flags, io);
  const { kafka, topic } = open(flags, io);
  const { book, exists } = await readLetters(kafka, topic);
  const letters = book.select(filter);
  const rows = letters.map((l) => ({
    id: l.id,
    dead_lettered_at: l.at.toISOString(),
    reason: l.reason,
    error: l.error,
    spans: summarizeLetter(l.value, 0).spans,
    bytes: l.bytes,
    source: l.source,
    replay_of: l.replayOf ?? null,
    state: state(l),
    replayed: l.replayed ? { at: l.replayed.at.toISOString(), to: l.replayed.to } : null,
  }));
  if (flags.json) {
    io.out(JSON.stringify({ topic, exists, letters: rows }, null, 2));
    return 0;
  }
  if (!exists) {
    io.out(`${topic}: no such topic yet (nothing was dead-lettered)`);
    return 0;
  }
  if (rows.length === 0) {
    io.out(`${topic}: no letters${Object.keys(filter).length > 0 ? ' match' : ''}`);
    return 0;
  }
  const header = ['ID', 'DEAD-LETTERED', 'REASON', 'SPANS', 'SOURCE', 'STATE'];
  const body = letters.map((l, i) => [
    l.id,
    rows[i]!.dead_lettered_at,
    l.reason,
    l.reason === 'decode_error' ? '-' : String(rows[i]!.spans),
    source(l),
    l.replayed
      ? `replayed to ${l.replayed.to}`
      : l.replayOf
        ? `pending (failed again, replay of ${l.replayOf})`
        : 'pending',
  ]);
  for (const line of table([header, ...body])) io.out(line);
  const byReason = new Map<string, number>();
  for (const l of letters) if (!l.replayed) byReason.set(l.reason, (byReason.get(l.reason) ?? 0) + 1);
  const pending = [...byReason].map(([r, n]) => `${r} ${n}`).join(', ');
  io.out(
    `${letters.length} letter(s) in ${topic}; pending: ${pending || 'none'}.` +
      (pending ? ' Fix the cause, then `tooltrail dlq replay --reason <reason>`.' : ''),
  );
  return 0;
}

async function runShow(id: string, flags: CommonFlags, io: DlqIo): Promise<number> {
  if (!/^\d+:\d+$/.test(id)) throw new DlqUsageError(`letter id ${JSON.stringify(id)}: use partition:offset`);
  const { kafka, topic } = open(flags, io);
  const { book } = await readLetters(kafka, topic);
  const letter = book.select({ ids: [id] })[0];
  if (!letter) {
    io.err(`tooltrail dlq: no letter ${id} in ${topic} (\`tooltrail dlq list\` gives the ids)`);
    return 1;
  }
  const summary = summarizeLetter(letter.value);
  if (flags.json) {
    const { value: _value, ...rest } = letter;
    io.out(JSON.stringify({ topic, letter: { ...rest, state: state(letter) }, summary }, null, 2));
    return 0;
  }
  io.out(`letter ${letter.id} of ${topic}`);
  const kv = (k: string, v: string) => io.out(`  ${k.padEnd(15)}${v}`);
  kv('dead-lettered', letter.at.toISOString());
  kv('reason', letter.reason);
  kv('error', letter.error);
  kv('source', source(letter));
  if (letter.replayOf) kv('replay of', `${letter.replayOf} (it failed again)`);
  kv('state', letter.replayed ? `replayed to ${letter.replayed.to} at ${letter.replayed.at.toISOString()}` : 'pending');
  kv('bytes', `${letter.bytes} (sha256 ${summary.sha256})`);
  io.out('  headers');
  for (const [k, v] of Object.entries(letter.headers)) io.out(`    ${k}: ${v}`);
  if (!summary.decoded) {
    io.out(`  content        not OTLP protobuf (${summary.decodeError}); bytes not shown`);
    return 0;
  }
  io.out(
    `  content        ${summary.spans} span(s) in ${summary.resources.length} resource(s); attribute values not shown`,
  );
  for (const r of summary.resources) {
    io.out(
      `    resource service.name=${r.serviceName ?? '-'} tooltrail.tenant=${r.tenant ?? '(none)'}: ${r.spans} span(s); keys ${r.attributeKeys.join(', ') || '-'}`,
    );
  }
  for (const s of summary.firstSpans) {
    const tool = s.toolName ? ` tool=${s.toolName}` : '';
    const contract = [s.effect ? `effect=${s.effect}` : '', s.resultStatus ? `status=${s.resultStatus}` : '']
      .filter(Boolean)
      .join(' ');
    io.out(`    span ${s.traceId}/${s.spanId} "${s.name}"${tool}${contract ? ` ${contract}` : ''}`);
    io.out(`      keys ${s.attributeKeys.join(', ') || '-'}`);
  }
  if (summary.spans > summary.firstSpans.length) io.out(`    ... ${summary.spans - summary.firstSpans.length} more`);
  return 0;
}

async function runReplay(ids: string[], flags: ReplayFlags, io: DlqIo): Promise<number> {
  reasonCheck(flags);
  const filter = selection(flags, io, ids);
  if (Object.keys(filter).length === 0 && !flags.all) {
    throw new DlqUsageError('replay needs letter ids, --reason, --since/--until, or --all');
  }
  const { kafka, topic } = open(flags, io);
  const { book } = await readLetters(kafka, topic);
  const letters = book.select(filter);
  const missing = (ids ?? []).filter((id) => !letters.some((l) => l.id === id));
  const producer = createIdempotentProducer(kafka);
  await producer.connect();
  let outcome: Awaited<ReturnType<typeof replayLetters>>;
  try {
    outcome = await replayLetters(producer, letters, {
      deadLetterTopic: topic,
      ...(flags.force ? { force: true } : {}),
      ...(flags.toTopic ? { toTopic: flags.toTopic } : {}),
    });
  } finally {
    await producer.disconnect();
  }
  if (flags.json) {
    io.out(
      JSON.stringify(
        {
          topic,
          replayed: outcome.replayed.map((r) => ({ id: r.letter.id, reason: r.letter.reason, to: r.to })),
          skipped: outcome.skipped.map((s) => ({ id: s.letter.id, reason: s.letter.reason, why: s.why })),
          not_found: missing,
        },
        null,
        2,
      ),
    );
  } else {
    const to = [...new Set(outcome.replayed.map((r) => r.to))].join(', ');
    io.out(
      `replayed ${outcome.replayed.length} letter(s)${to ? ` to ${to}` : ''}; skipped ${outcome.skipped.length}` +
        (outcome.replayed.length > 0
          ? '. The ingest stores them, or dead-letters them again if the cause is not fixed (`tooltrail dlq list`).'
          : ''),
    );
    for (const s of outcome.skipped) io.out(`  skipped ${s.letter.id} (${s.letter.reason}): ${s.why}`);
    for (const id of missing) io.err(`tooltrail dlq: no letter ${id} in ${topic}`);
  }
  return missing.length > 0 ? 1 : 0;
}
