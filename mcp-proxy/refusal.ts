/**
 * What the model receives when the guard stops a call: `isError: true`, one paragraph it can act on, and the review
 * request as structured data (reasons, what was not seen, the recovery options). A tool with an `outputSchema`
 * gets it under `_meta` instead: clients validate `structuredContent` against that schema even on errors.
 */
import type { GuardJudgement } from './guard-step.ts';

export const REVIEW_META_KEY = 'io.tooltrail/review';

export interface StoppedCall {
  toolName: string;
  callId: string;
  resource: string | undefined;
  judgement: GuardJudgement;
  /** The tool declared an outputSchema. */
  hasOutputSchema: boolean;
}

export interface ReviewContent {
  tooltrail: 'guard';
  decision: GuardJudgement['decision'];
  action: string;
  callId: string;
  resource?: string;
  reasons: { code: string; message: string; callId?: string }[];
  notSeen: { code: string; message?: string; evidenceCallId: string }[];
  targets: readonly string[];
  /** What would make the call acceptable; `read_all_pages` carries the cursor of the next page to read. */
  options: { kind: string; description: string; cursor?: string }[];
}

export function stoppedResult(stop: StoppedCall): Record<string, unknown> {
  const review = reviewContent(stop);
  const text = paragraph(review);
  const base = { isError: true, content: [{ type: 'text', text }] };
  return stop.hasOutputSchema
    ? { ...base, _meta: { [REVIEW_META_KEY]: review } }
    : { ...base, structuredContent: review };
}

export function reviewContent(stop: StoppedCall): ReviewContent {
  const r = stop.judgement.review;
  return {
    tooltrail: 'guard',
    decision: stop.judgement.decision,
    action: stop.toolName,
    callId: stop.callId,
    ...(stop.resource === undefined ? {} : { resource: stop.resource }),
    reasons: stop.judgement.findings.map((f) => ({
      code: f.code,
      message: f.message,
      ...(f.callId ? { callId: f.callId } : {}),
    })),
    notSeen: (r?.incompleteReasons ?? []).map((x) => ({
      code: x.code,
      ...(x.message === undefined ? {} : { message: x.message }),
      evidenceCallId: x.evidenceCallId,
    })),
    targets: r?.targets ?? [],
    options: (r?.options ?? []).map((o) => ({
      kind: o.kind,
      description: o.description,
      ...('cursor' in o && o.cursor !== undefined ? { cursor: o.cursor } : {}),
    })),
  };
}

/** One paragraph: what happened, why, what to do next. The model reads this, not the JSON. */
function paragraph(review: ReviewContent): string {
  const verb = review.decision === 'review_requested' ? 'held this call for human review' : 'stopped this call';
  const where = review.resource ? ` on ${review.resource}` : '';
  const why = review.reasons.map((f) => `${f.code}: ${f.message}`).join('; ');
  const unseen = review.notSeen.length
    ? ` What was not seen: ${review.notSeen.map((n) => `${n.code}${n.message ? ` (${n.message})` : ''} in read ${n.evidenceCallId}`).join('; ')}.`
    : '';
  const options = review.options.length
    ? ` You can: ${review.options.map((o) => o.description).join('; or ')}.`
    : ' Read what you mean to change completely first (follow every cursor, or narrow the query), then act only on what the read returned.';
  return `tooltrail ${verb}: ${review.action}${where} was not sent to the server, because the evidence in this session does not support it (${why}).${unseen}${options} Do not retry the same call unchanged.`;
}
