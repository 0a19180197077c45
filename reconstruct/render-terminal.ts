/**
 * The reconstruction as plain text for a terminal: one table row per timeline entry (gaps included, in place),
 * each mutation followed by its evidence links and concerns, then the "could not see" list. No colour codes, so
 * the output pastes cleanly into an incident document.
 */
import type { CallEntry, Entry, GapEntry, Reconstruction, SessionTimeline } from './timeline.ts';

const COLUMNS = ['#', 'SEQ', 'TIME (UTC)', 'TOOL', 'EFFECT', 'RESULT', 'REASONS -> CONTINUATION', 'SCOPE', 'GUARD'];
const MAX_WIDTH = [4, 6, 18, 28, 9, 32, 40, 36, 16];

function clip(s: string, width: number): string {
  return s.length <= width ? s : `${s.slice(0, Math.max(0, width - 1))}…`;
}

export function clockTime(instant: string): string {
  // 2026-03-01T10:00:00.123456789Z -> 10:00:00.123456
  return `${instant.slice(11, 19)}.${instant.slice(20, 26)}`;
}

export function resultText(e: CallEntry): string {
  const items = e.item_count === null ? '' : `, ${e.item_count} item${e.item_count === 1 ? '' : 's'}`;
  const status = e.result_status && e.result_status !== e.completeness ? ` (${e.result_status})` : '';
  return `${e.completeness}${items}${status}`;
}

export function reasonsText(e: CallEntry): string {
  const reasons = e.reasons.length ? e.reasons.join(', ') : '-';
  return e.continuation && e.continuation !== 'none' ? `${reasons} -> ${e.continuation}` : reasons;
}

export function scopeText(e: CallEntry): string {
  const parts = [e.scope.resource ?? '-'];
  if (e.scope.snapshot) parts.push(`@${e.scope.snapshot}`);
  if (e.scope.visibility) parts.push(`[${e.scope.visibility}]`);
  return parts.join(' ');
}

function callCells(e: CallEntry): string[] {
  return [
    String(e.position),
    e.sequence === null ? '-' : String(e.sequence),
    clockTime(e.time),
    e.tool_name || '(unnamed)',
    e.effect,
    resultText(e),
    reasonsText(e),
    scopeText(e),
    e.guard_decision ?? '-',
  ];
}

function detailLines(e: CallEntry, indent: string): string[] {
  const lines: string[] = [];
  if (e.traversal) {
    const where = e.traversal.page === null ? 'a page of unknown position' : `page ${e.traversal.page}`;
    lines.push(`${indent}${where} of the paged read ${e.traversal.id}`);
  }
  if (e.mutation) {
    const m = e.mutation;
    lines.push(
      `${indent}mutation: basis ${m.basis ?? 'not stated'}, ${m.target_count ?? '?'} target(s), guard ${e.guard_decision ?? 'did not run'}`,
    );
    for (const l of m.evidence) {
      if (!l.found) {
        lines.push(`${indent}evidence ${l.via} ${l.ref}: NOT STORED`);
        continue;
      }
      for (const r of l.reads) {
        const where = r.position !== null ? `#${r.position}` : `session ${r.session_id || '(none)'}`;
        const why = r.reasons.length ? `: ${r.reasons.join(', ')}` : '';
        const items = r.item_count === null ? '' : `, ${r.item_count} items`;
        lines.push(`${indent}evidence ${l.via} ${l.ref} -> ${where} ${r.tool_name} (${r.completeness}${why}${items})`);
      }
      for (const t of l.traversals) lines.push(`${indent}  as one paged read ${t.id}: ${t.statement}`);
    }
    for (const c of m.concerns) lines.push(`${indent}! ${c.code}: ${c.statement}`);
  }
  for (const w of e.warnings) {
    lines.push(`${indent}warning ${w.code}${w.source ? ` (${w.source})` : ''}${w.message ? `: ${w.message}` : ''}`);
  }
  if (e.span_status.code === 'Error')
    lines.push(`${indent}span status Error${e.span_status.message ? `: ${e.span_status.message}` : ''}`);
  return lines;
}

function gapLine(e: GapEntry): string {
  return `GAP (${e.gap.type}): ${e.statement}`;
}

/** `highlight`: span id of the mutation a finding is about, marked under its row. */
export function renderSessionText(s: SessionTimeline, highlight: string | null = null): string {
  const out: string[] = [];
  const agents =
    s.agents
      .map((a) => a.name || a.id)
      .filter(Boolean)
      .join(', ') || 'unknown agent';
  const title = s.session_id ? `Session ${s.session_id}` : `Calls without a session in trace ${s.trace_ids[0] ?? ''}`;
  out.push(`${title} (tenant ${s.tenant}) · ${agents} · ${s.started_at} -> ${s.ended_at}`);
  const sum = s.summary;
  out.push(
    `${sum.calls} calls (${sum.reads} reads, ${sum.mutations} mutations) · ${sum.incomplete_reads} incomplete and ${sum.unknown_reads} unknown-completeness reads · ${sum.gaps} gap(s) · ${sum.mutations_with_concerns} mutation(s) with concerns`,
  );
  out.push(
    s.reconstruction.complete ? 'Reconstruction: complete record.' : `Reconstruction: ${s.reconstruction.statement}`,
  );
  out.push('');

  const rows = s.entries.filter((e): e is CallEntry => e.kind === 'call').map(callCells);
  const widths = COLUMNS.map((h, i) =>
    Math.min(MAX_WIDTH[i] ?? 20, Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length))),
  );
  const fmt = (cells: string[]) =>
    cells
      .map((c, i) => {
        const w = widths[i] ?? 10;
        return i <= 1 ? clip(c, w).padStart(w) : clip(c, w).padEnd(w);
      })
      .join('  ')
      .trimEnd();
  out.push(fmt(COLUMNS));
  const indent = ' '.repeat((widths[0] ?? 2) + (widths[1] ?? 3) + 4);
  for (const e of s.entries as Entry[]) {
    if (e.kind === 'gap') {
      out.push(`${String(e.position).padStart(widths[0] ?? 2)}  ${'!'.padStart(widths[1] ?? 3)}  ${gapLine(e)}`);
      continue;
    }
    out.push(fmt(callCells(e)));
    if (highlight !== null && e.span_id === highlight) out.push(`${indent}^^^ the finding is about this call`);
    out.push(...detailLines(e, indent));
  }
  if (s.traversals.length) {
    out.push('');
    out.push('Paged reads:');
    for (const t of s.traversals) {
      const at = t.entries.length ? ` #${t.entries[0]}${t.entries.length > 1 ? `-#${t.entries.at(-1)}` : ''}` : '';
      out.push(`  ${t.tool_name}${at}: ${t.statement}`);
    }
  }
  out.push('');
  out.push('What it could not see:');
  if (s.could_not_see.length === 0)
    out.push('  nothing recorded: every read said it was complete and no gap was found');
  for (const line of s.could_not_see) out.push(`  ${line}`);
  if (s.notes.length) {
    out.push('');
    out.push('Notes:');
    for (const n of s.notes) out.push(`  ${n}`);
  }
  return out.join('\n');
}

export function renderReconstructionText(r: Reconstruction): string {
  const head: string[] = [];
  if (r.finding) head.push(`Finding ${r.finding.fingerprint} (${r.finding.kind}): ${r.finding.summary}`, '');
  return [...head, ...r.sessions.map((s) => renderSessionText(s, r.finding?.mutation_span_id ?? null))].join('\n\n');
}
