/**
 * The terminal story of one agent run: each call with what the agent saw and what it could not see, what the
 * guard decided and why, the reviewer's recovery options, and finally what really changed in the world.
 * Plain text; ANSI colours only when asked, and by default only on a TTY without NO_COLOR.
 */
import type { RecoveryOption } from '../../instrumentation/index.ts';
import type { AgentRunSummary, MutationDetail, ResultSummary, ToolCallSummary } from './run-summary.ts';

export interface FormatOptions {
  /** Default: stdout is a TTY and NO_COLOR is not set. */
  color?: boolean;
}

type Paint = (s: string) => string;
interface Palette {
  bad: Paint;
  warn: Paint;
  good: Paint;
  dim: Paint;
  bold: Paint;
}

const INDENT = '             ';
const MAX_IDS = 6;

export function shouldUseColor(): boolean {
  return process.env.NO_COLOR === undefined && process.stdout.isTTY === true;
}

export function formatAgentRun(summary: AgentRunSummary, options: FormatOptions = {}): string {
  const p = palette(options.color ?? shouldUseColor());
  const bySequence = new Map(summary.calls.map((c) => [c.callId, c.sequence]));
  const lines: string[] = [];
  lines.push(
    p.bold(`session ${summary.sessionId}`) +
      ` · ${summary.agentName} (${summary.strategy}, role ${summary.role}) · ${guardLine(summary)}`,
  );
  lines.push(`task: ${summary.task}`);
  for (const call of summary.calls) lines.push(...formatCall(call, bySequence, p));
  const m = summary.mutations;
  lines.push(
    `mutations: ${m.ran.length} ran · ${m.refused.length} refused · ${m.reviewRequested.length} sent for review`,
  );
  lines.push(p.bold('what really happened (ground truth the agent never saw):'));
  for (const line of summary.outcome)
    lines.push(`  - ${/FALSE|not done|had an owner!/.test(line) ? p.bad(line) : line}`);
  return `${lines.join('\n')}\n`;
}

function guardLine(s: AgentRunSummary): string {
  if (s.guard === 'off') return 'guard OFF: mutations run unchecked, spans still carry the contract';
  const what = s.onUnsafeEvidence === 'refused' ? 'refused' : 'sent for review';
  return `guard ON: mutations on unsafe evidence are ${what}`;
}

function formatCall(call: ToolCallSummary, bySequence: Map<string, number>, p: Palette): string[] {
  const head = ` #${String(call.sequence).padEnd(3)}${call.effect.padEnd(9)}${call.tool.padEnd(29)}`;
  const lines: string[] = [];
  if (call.mutation) {
    lines.push(head + mutationHead(call.mutation, bySequence));
    lines.push(...guardLines(call.mutation, bySequence, p));
    if (call.mutation.ran && call.result) lines.push(`${INDENT}result: ${resultHead(call.result, p)}`);
  } else if (call.result) {
    lines.push(head + resultHead(call.result, p));
    lines.push(...couldNotSee(call.result, p));
  }
  if (call.conclusion) lines.push(p.dim(`${INDENT}agent: "${call.conclusion}"`));
  return lines;
}

function resultHead(r: ResultSummary, p: Palette): string {
  const count = r.itemCount === undefined ? '' : ` · ${r.itemCount} item${r.itemCount === 1 ? '' : 's'}`;
  const pages = r.pages === undefined ? '' : ` · ${r.pages} page${r.pages === 1 ? '' : 's'}`;
  const snapshot = r.scope?.snapshot ? ` · snapshot ${r.scope.snapshot}` : '';
  const tail = `${count}${pages}${snapshot}`;
  if (r.recognized === 'unknown') {
    return `${p.bad('completeness UNKNOWN')}${tail} (the tool said nothing about it: counts as incomplete)`;
  }
  switch (r.state) {
    case 'complete_with_items':
      return `${p.good('complete')}${tail}`;
    case 'complete_empty':
      return `${p.good('complete and empty')}${tail} (evidence of absence)`;
    case 'incomplete_with_items':
      return `${p.bad('INCOMPLETE')}${tail}`;
    case 'incomplete_empty':
      return `${p.bad('INCOMPLETE and EMPTY')}${tail} ${p.bad('<- looks like "none", proves nothing')}`;
  }
}

function couldNotSee(r: ResultSummary, p: Palette): string[] {
  const lines: string[] = [];
  r.reasons.forEach((reason, i) => {
    if (r.recognized === 'unknown') return;
    const label = i === 0 ? 'could not see: ' : '               ';
    const source = reason.source ? ` [${reason.source}]` : '';
    lines.push(`${INDENT}${label}${p.bad(reason.code)}${source}${reason.message ? ` ${reason.message}` : ''}`);
  });
  if (!r.complete && r.continuation !== 'none') {
    lines.push(`${INDENT}continuation: ${r.continuation} -> next step: ${r.nextStep}`);
  }
  for (const w of r.warnings) lines.push(`${INDENT}${p.warn(`warning ${w.code}`)} [${w.source}] ${w.message}`);
  return lines;
}

function mutationHead(m: MutationDetail, bySequence: Map<string, number>): string {
  const evidence = m.evidence.map((e) => {
    const seq = e.sequence ?? bySequence.get(e.callId);
    return seq === undefined ? e.callId : `#${seq}`;
  });
  return `${m.basis} · ${m.targets.length} target${m.targets.length === 1 ? '' : 's'} (${ids(m.targets)}) · evidence ${evidence.join(', ') || 'none'}`;
}

function guardLines(m: MutationDetail, bySequence: Map<string, number>, p: Palette): string[] {
  if (m.guard === 'not_checked') {
    const lines = [`${INDENT}guard: ${p.warn('off')} -> ${p.bad('RAN unchecked')}`];
    const would = m.unenforced;
    if (would && would.decision !== 'allowed') {
      const codes = [...new Set(would.findings.map((f) => f.code))].join(', ');
      const verb = would.decision === 'refused' ? 'refused it' : 'sent it for review';
      lines.push(`${INDENT}  (had it been on, the guard would have ${verb}: ${codes})`);
    }
    return lines;
  }
  if (m.guard === 'allowed') return [`${INDENT}guard: ${p.good('ALLOWED')} (evidence complete) -> ran`];
  const decision = m.guard === 'refused' ? 'REFUSED' : 'REVIEW REQUESTED';
  const lines = [`${INDENT}guard: ${p.warn(decision)} -> did not run`];
  for (const f of m.findings) lines.push(`${INDENT}  - ${f.code}: ${withSequences(f.message, bySequence)}`);
  if (m.review) {
    const label = m.guard === 'refused' ? 'to proceed' : 'reviewer options';
    lines.push(`${INDENT}${label}: ${m.review.options.map(option).join(' | ')}`);
  }
  return lines;
}

/** Call ids are for machines; in the story a read is `#sequence`. */
function withSequences(message: string, bySequence: Map<string, number>): string {
  let out = message;
  for (const [callId, seq] of bySequence) out = out.replaceAll(callId, `#${seq}`);
  return out;
}

function option(o: RecoveryOption): string {
  switch (o.kind) {
    case 'retry_with_longer_deadline':
      return o.minimumSeconds
        ? `re-read with a deadline >= ${o.minimumSeconds} s until complete`
        : 're-read every page until complete';
    case 'narrow_to_returned_ids':
      return `act only on the ${o.targetCount} returned id${o.targetCount === 1 ? '' : 's'} (${ids(o.targets)})`;
    case 'abandon':
      return 'abandon';
    default:
      return o.description;
  }
}

function ids(list: readonly string[]): string {
  if (list.length <= MAX_IDS) return list.join(', ');
  return `${list.slice(0, MAX_IDS).join(', ')}, ... +${list.length - MAX_IDS}`;
}

function palette(color: boolean): Palette {
  const sgr =
    (code: string): Paint =>
    (s) =>
      color ? `\u001b[${code}m${s}\u001b[0m` : s;
  return { bad: sgr('31'), warn: sgr('33'), good: sgr('32'), dim: sgr('2'), bold: sgr('1') };
}
