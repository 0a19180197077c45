/** The proof section of the HTML report: per tool call its leaf, tree size and proof, and the bundle to check offline. */
import type { ProofBundle } from './bundle.ts';

const esc = (s: string) =>
  s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

export function renderBundleHtml(b: ProofBundle): string {
  const rows = b.calls
    .map(
      (c) =>
        `<tr><td><code>${esc(c.row_id)}</code></td><td>${esc(c.log)}</td><td>${c.leaf_index}</td><td>${c.tree_size}</td><td>${c.inclusion_proof.length} hashes</td></tr>`,
    )
    .join('');
  const missing = b.not_provable.map((n) => `<li><code>${esc(n.row_id)}</code>: ${esc(n.reason)}</li>`).join('');
  return `<section class="proofs" data-testid="proofs">
<h2>Proofs: tenant ${esc(b.tenant)}</h2>
<p>Each call below is a leaf of the tenant's signed Merkle log. Save the bundle as a file and run
<code>tooltrail verify --bundle FILE --key &lt;verifier key&gt;</code> to check it without the database.</p>
<table><thead><tr><th>call (span id)</th><th>log</th><th>leaf index</th><th>tree size</th><th>inclusion proof</th></tr></thead><tbody>${rows}</tbody></table>
${missing ? `<p>No proof for:</p><ul>${missing}</ul>` : ''}
<details><summary>proof bundle (${esc(b.format)})</summary><pre>${esc(JSON.stringify(b, null, 2))}</pre></details>
</section>`;
}
