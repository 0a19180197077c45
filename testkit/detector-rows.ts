/**
 * Detector rows in a canonical form, to compare two detectors of the same rule (the incremental ones against the
 * range ones): rows sorted by what identifies them, and inside a row the reads (span, trace, tool) and the reasons
 * sorted, since their order inside a group is not part of the rule. Used by the alerts tests and the bench.
 */
export function canonicalDetectorRows(rows: readonly unknown[]): string[] {
  return rows
    .map((row) => {
      const r: Record<string, unknown> = { ...(row as Record<string, unknown>) };
      const spans = (r.read_span_ids as string[] | undefined) ?? [];
      const traces = (r.read_trace_ids as string[] | undefined) ?? [];
      const tools = (r.read_tool_names as string[] | undefined) ?? [];
      if (spans.length) {
        const reads = spans.map((s, i) => [s, traces[i], tools[i]] as const).sort((a, b) => (a[0] < b[0] ? -1 : 1));
        r.read_span_ids = reads.map((x) => x[0]);
        r.read_trace_ids = reads.map((x) => x[1]);
        r.read_tool_names = reads.map((x) => x[2]);
      }
      if (Array.isArray(r.reasons)) r.reasons = [...(r.reasons as string[])].sort();
      return JSON.stringify(
        Object.keys(r)
          .sort()
          .map((k) => [k, r[k]]),
      );
    })
    .sort();
}
