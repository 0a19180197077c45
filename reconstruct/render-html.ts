/**
 * The reconstruction as one self-contained HTML file (inline CSS, no script, no external request), to attach to an
 * incident ticket. Every value is HTML-escaped: span attributes come from agents and tools, not from us.
 * Gaps are rows of the timeline, drawn so they cannot be missed; evidence links jump to the read they name.
 */
import { clockTime, resultText, scopeText } from './render-terminal.ts';
import type { CallEntry, Entry, GapEntry, Reconstruction, SessionTimeline } from './timeline.ts';

/** The report's policy: no script, no fetch, its own inline styles only (a header too when the API serves it). */
export const REPORT_CSP = "default-src 'none'; style-src 'unsafe-inline'";

const ESC: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
export function esc(s: string | number | null | undefined): string {
  return String(s ?? '').replace(/[&<>"']/g, (c) => ESC[c] ?? c);
}

const CSS = `
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;margin:24px;color:#1d2330;background:#fff}
h1{font-size:20px;margin:0 0 4px}h2{font-size:17px;margin:28px 0 6px}h3{font-size:14px;margin:16px 0 6px}
.meta{color:#5b6475;font-size:12px}
.banner{padding:8px 12px;border-radius:6px;margin:10px 0}
.banner.bad{background:#fff1f0;border:1px solid #f5b5b0}.banner.ok{background:#eefaf0;border:1px solid #a9dcb3}
.finding{background:#fff8e6;border:1px solid #f0cf7a;padding:8px 12px;border-radius:6px;margin:10px 0}
table{border-collapse:collapse;width:100%;margin-top:8px}
th,td{border-bottom:1px solid #e3e6ec;padding:6px 8px;text-align:left;vertical-align:top}
th{background:#f5f6f9;font-size:12px;text-transform:uppercase;letter-spacing:.03em;color:#5b6475}
td.num{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
tr.gap td{background:repeating-linear-gradient(45deg,#fff5f5,#fff5f5 8px,#ffe9e9 8px,#ffe9e9 16px);
  border:2px dashed #d4380d;color:#a8071a;font-weight:600}
tr.mutation td{background:#f6f3ff}tr.highlight td{outline:3px solid #f0a500}
.c-complete{color:#237804}.c-incomplete{color:#ad4e00;font-weight:600}.c-unknown{color:#a8071a;font-weight:600}
.pill{display:inline-block;padding:0 6px;border-radius:9px;background:#eef0f4;font-size:12px;margin:1px 2px 1px 0}
.pill.reason{background:#fff1e6;color:#ad4e00}.pill.warn{background:#fffbe6;color:#876800}
.guard-refused,.guard-review_requested{color:#a8071a;font-weight:600}.guard-allowed{color:#237804}
.details{margin:4px 0 0;padding-left:18px;font-size:13px}
.concern{color:#a8071a;font-weight:600}.blind{color:#ad4e00}
ul.cns li{margin:2px 0}code{font-size:12px;background:#f5f6f9;padding:0 3px;border-radius:3px}
`;

function pill(text: string, cls = ''): string {
  return `<span class="pill ${cls}">${esc(text)}</span>`;
}

function anchor(session: number, position: number): string {
  return `s${session}-e${position}`;
}

function callRow(e: CallEntry, si: number, highlight: string | null): string {
  const cls = ['call', e.effect === 'mutation' ? 'mutation' : '', highlight === e.span_id ? 'highlight' : '']
    .filter(Boolean)
    .join(' ');
  const details: string[] = [];
  if (e.traversal) {
    const where = e.traversal.page === null ? 'a page of unknown position' : `page ${e.traversal.page}`;
    details.push(`<li>${esc(where)} of the paged read <code>${esc(e.traversal.id)}</code></li>`);
  }
  for (const b of e.could_not_see) details.push(`<li class="blind">could not see: ${esc(b.statement)}</li>`);
  if (e.mutation) {
    const m = e.mutation;
    details.push(
      `<li>mutation: basis <b>${esc(m.basis ?? 'not stated')}</b>, ${esc(m.target_count ?? '?')} target(s)</li>`,
    );
    for (const l of m.evidence) {
      if (!l.found) {
        details.push(
          `<li class="concern" data-evidence="missing">evidence ${esc(l.via)} <code>${esc(l.ref)}</code>: not stored</li>`,
        );
        continue;
      }
      for (const r of l.reads) {
        const target =
          r.position !== null
            ? `<a href="#${anchor(si, r.position)}">#${r.position} ${esc(r.tool_name)}</a>`
            : `${esc(r.tool_name)} in session <code>${esc(r.session_id || '(none)')}</code>`;
        const reasons = r.reasons.map((x) => pill(x, 'reason')).join('');
        details.push(
          `<li data-evidence="found">relied on ${esc(l.via)} <code>${esc(l.ref)}</code> &rarr; ${target}: <span class="c-${r.completeness}">${esc(r.completeness)}</span>${r.item_count === null ? '' : `, ${esc(r.item_count)} items`} ${reasons}</li>`,
        );
      }
      for (const t of l.traversals) {
        details.push(
          `<li data-evidence="traversal">as one paged read <code>${esc(t.id)}</code>: <span class="c-${t.complete ? 'complete' : 'incomplete'}">${esc(t.statement)}</span></li>`,
        );
      }
    }
    for (const c of m.concerns) details.push(`<li class="concern">${esc(c.code)}: ${esc(c.statement)}</li>`);
  }
  for (const w of e.warnings) {
    details.push(
      `<li>${pill(w.code, 'warn')}${w.source ? ` <code>${esc(w.source)}</code>` : ''}${w.message ? ` ${esc(w.message)}` : ''}</li>`,
    );
  }
  if (e.span_status.code === 'Error')
    details.push(`<li class="concern">span status Error ${esc(e.span_status.message)}</li>`);
  return `<tr id="${anchor(si, e.position)}" class="${cls}" data-kind="call" data-effect="${esc(e.effect)}" data-span="${esc(e.span_id)}">
<td class="num">${e.position}</td><td class="num">${esc(e.sequence ?? '–')}</td><td class="num" title="${esc(e.time)}">${esc(clockTime(e.time))}</td>
<td><b>${esc(e.tool_name || '(unnamed)')}</b><div class="meta">${esc(e.agent_name)} · call ${esc(e.tool_call_id || '–')}</div></td>
<td>${esc(e.effect)}</td>
<td class="c-${e.completeness}">${esc(resultText(e))}</td>
<td>${e.reasons.map((r) => pill(r, 'reason')).join('') || '–'}${e.continuation && e.continuation !== 'none' ? `<div class="meta">continuation: ${esc(e.continuation)}</div>` : ''}</td>
<td>${esc(scopeText(e))}</td>
<td class="guard-${esc(e.guard_decision ?? 'none')}">${esc(e.guard_decision ?? '–')}</td>
</tr>${details.length ? `\n<tr class="${cls}-details"><td></td><td colspan="8"><ul class="details">${details.join('')}</ul></td></tr>` : ''}`;
}

function gapRow(e: GapEntry, si: number): string {
  return `<tr id="${anchor(si, e.position)}" class="gap" data-kind="gap" data-gap="${esc(e.gap.type)}">
<td class="num">${e.position}</td><td colspan="8">GAP · ${esc(e.gap.type.replace(/_/g, ' '))}: ${esc(e.statement)}</td></tr>`;
}

function sessionSection(s: SessionTimeline, si: number, highlight: string | null): string {
  const title = s.session_id ? `Session ${s.session_id}` : `Calls without a session (trace ${s.trace_ids[0] ?? ''})`;
  const sum = s.summary;
  const banner = s.reconstruction.complete
    ? '<div class="banner ok">Complete record: no gap found in what was stored.</div>'
    : `<div class="banner bad" data-testid="reconstruction-incomplete">${esc(s.reconstruction.statement)}</div>`;
  const rows = (s.entries as Entry[]).map((e) => (e.kind === 'gap' ? gapRow(e, si) : callRow(e, si, highlight)));
  const cns = s.could_not_see.length
    ? `<ul class="cns">${s.could_not_see.map((l) => `<li>${esc(l)}</li>`).join('')}</ul>`
    : '<p>Nothing recorded: every read said it was complete and no gap was found.</p>';
  const notes = s.notes.length ? `<h3>Notes</h3><ul>${s.notes.map((n) => `<li>${esc(n)}</li>`).join('')}</ul>` : '';
  const paged = s.traversals.length
    ? `<h3>Paged reads</h3><ul class="traversals">${s.traversals
        .map(
          (t) =>
            `<li data-traversal="${esc(t.id)}" class="c-${t.complete ? 'complete' : 'incomplete'}">${esc(t.tool_name)} ${t.entries.map((p) => `<a href="#${anchor(si, p)}">#${p}</a>`).join(' ')}: ${esc(t.statement)}</li>`,
        )
        .join('')}</ul>`
    : '';
  return `<section data-session="${esc(s.session_id)}">
<h2>${esc(title)}</h2>
<div class="meta">tenant ${esc(s.tenant)} · agents ${esc(s.agents.map((a) => a.name || a.id).join(', ') || 'unknown')} · ${esc(s.started_at)} → ${esc(s.ended_at)} · traces ${esc(s.trace_ids.join(', '))}</div>
<p>${sum.calls} calls: ${sum.reads} reads (${sum.incomplete_reads} incomplete, ${sum.unknown_reads} of unknown completeness), ${sum.mutations} mutations (${sum.mutations_with_concerns} with concerns), ${sum.gaps} gap(s).</p>
${banner}
<h3>What it could not see</h3>
${cns}
${paged}
<h3>Timeline</h3>
<table><thead><tr><th>#</th><th>Seq</th><th>Time (UTC)</th><th>Tool</th><th>Effect</th><th>Result</th><th>Reasons</th><th>Scope</th><th>Guard</th></tr></thead>
<tbody>
${rows.join('\n')}
</tbody></table>
${notes}
</section>`;
}

/**
 * `appendix`: HTML the assembly adds after the sessions (the audit's proof section); already escaped by its
 * renderer, put in as it is.
 */
export function renderReconstructionHtml(r: Reconstruction, extra: { appendix?: string } = {}): string {
  const f = r.finding;
  const findingBox = f
    ? `<div class="finding" data-testid="finding">Finding <code>${esc(f.fingerprint)}</code> (${esc(f.kind)}): ${esc(f.summary)}</div>`
    : '';
  const title = `tooltrail reconstruction: ${r.subject.kind} ${r.subject.id}`;
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${REPORT_CSP}">
<title>${esc(title)}</title><style>${CSS}</style></head>
<body>
<h1>${esc(title)}</h1>
<div class="meta">generated ${esc(r.generated_at)}${r.subject.tenant ? ` · tenant ${esc(r.subject.tenant)}` : ''} · format ${esc(r.format)} v${r.version}</div>
${findingBox}
${r.sessions.map((s, i) => sessionSection(s, i, f?.mutation_span_id ?? null)).join('\n')}
${extra.appendix ?? ''}
</body></html>
`;
}
