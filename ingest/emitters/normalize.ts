/**
 * Another emitter's tool span as a tooltrail tool span: the contract's attributes derived from what the emitter
 * recorded, so that every later stage (columns, detectors, reconstruction) reads it as it reads ours.
 * - tool name, call id, session: from the emitter's keys (contract/emitters.ts), the session else from an ancestor;
 * - effect, resource, basis, targets: from the tool policy given to the pipeline, never guessed from names;
 * - completeness: from the recorded result, by the shape readers the MCP proxy uses (contract/result-shapes.ts);
 *   nothing recorded, or a text cut by the emitter, stays unknown;
 * - the raw arguments and result are not kept: an HMAC-SHA256 of each when a key is configured, else nothing.
 * Every derived attribute is named in `tooltrail.inferred`; `tooltrail.emitter` names the emitter.
 */
import {
  Attr,
  type EmitterShape,
  EXECUTE_TOOL,
  GenAi,
  PAYLOAD_KEYS,
  type PolicyFile,
  type ToolPolicy,
  toolPolicyOf,
  valuesAt,
} from '../../contract/index.ts';
import { type AnyValue, bytesToHex, type KeyValue, type Span } from '../../platform/otlp/index.ts';
import { payloadHash } from './content.ts';
import { dotted, judgeResult } from './judge.ts';
import { readParts } from './parts.ts';
import { readRecorded } from './payload.ts';
import type { EmitterRequest } from './request.ts';
import { ownSession } from './session.ts';

export interface EmitterOptions {
  /** The tool policy file (`tooltrail up --policy`, TOOLTRAIL_INGEST_POLICY_FILE): effect, resource, items, targets. */
  policy?: PolicyFile;
  /** Key of the HMAC-SHA256 kept in place of the raw arguments and result; without one they are dropped. */
  payloadHashKey?: string;
}

/** The attributes the row is built from, replacing the emitter's own. */
const REPLACED: ReadonlySet<string> = new Set([
  GenAi.OPERATION_NAME,
  GenAi.TOOL_NAME,
  GenAi.TOOL_CALL_ID,
  GenAi.CONVERSATION_ID,
  ...PAYLOAD_KEYS,
]);

const STATUS_ERROR = 2;

export function normalizeToolSpan(span: Span, shape: EmitterShape, request: EmitterRequest): KeyValue[] {
  const attrs = span.attributes ?? [];
  const options = request.options;
  const inferred: string[] = [];
  const out: KeyValue[] = [];
  for (const kv of attrs) if (kv.key != null && !REPLACED.has(kv.key)) out.push(kv);
  out.push(str(GenAi.OPERATION_NAME, EXECUTE_TOOL));

  const { toolName, toolNameInferred, callId, argsText, resultText } = readParts(span, shape);
  if (toolName !== undefined) out.push(str(GenAi.TOOL_NAME, toolName));
  if (toolNameInferred) inferred.push(GenAi.TOOL_NAME);
  if (callId !== undefined) out.push(str(GenAi.TOOL_CALL_ID, callId));
  const own = ownSession(attrs);
  const session = own?.value ?? request.sessions.find(bytesToHex(span.parentSpanId));
  if (session !== undefined) {
    out.push(str(GenAi.CONVERSATION_ID, session));
    if (own?.key !== GenAi.CONVERSATION_ID) inferred.push(GenAi.CONVERSATION_ID);
  }

  const policy = toolPolicyOf(options.policy, toolName);
  const effect = policy?.effect;
  if (effect !== undefined) {
    out.push(str(Attr.EFFECT, effect));
    inferred.push(Attr.EFFECT);
  }
  if (policy?.resource !== undefined) {
    out.push(str(Attr.SCOPE_RESOURCE, policy.resource));
    inferred.push(Attr.SCOPE_RESOURCE);
  }
  if (effect === 'mutation') mutation(out, inferred, policy, argsText);
  else {
    completeness(out, inferred, span, policy, resultText);
    const page = request.pageOf(bytesToHex(span.spanId));
    if (page !== undefined) {
      out.push(str(Attr.TRAVERSAL_ID, page.id), { key: Attr.TRAVERSAL_PAGE, value: { intValue: page.page } });
      inferred.push(Attr.TRAVERSAL_ID, Attr.TRAVERSAL_PAGE);
    }
  }

  const key = options.payloadHashKey;
  if (key !== undefined && argsText !== undefined) out.push(str(GenAi.TOOL_CALL_ARGUMENTS, payloadHash(key, argsText)));
  if (key !== undefined && resultText !== undefined)
    out.push(str(GenAi.TOOL_CALL_RESULT, payloadHash(key, resultText)));
  out.push(str(Attr.EMITTER, shape.name));
  out.push({ key: Attr.INFERRED, value: strings(inferred) });
  return out;
}

/** A mutation's basis and target count, from its policy and the recorded arguments. */
function mutation(out: KeyValue[], inferred: string[], policy: ToolPolicy | undefined, argsText: string | undefined) {
  if (policy?.basis !== undefined) {
    out.push(str(Attr.MUTATION_BASIS, policy.basis));
    inferred.push(Attr.MUTATION_BASIS);
  }
  if (policy?.targets === undefined || argsText === undefined) return;
  const args = readRecorded(argsText);
  // OpenInference records a lone string argument bare (`acc-9`, text/plain): that one value is the target.
  const bare = args.value === undefined && !args.cut && !/^\s*[[{"]/.test(argsText);
  if (args.value === undefined && !bare) return;
  const count = args.value === undefined ? 1 : valuesAt(args.value, dotted(policy.targets)).length;
  out.push({ key: Attr.MUTATION_TARGET_COUNT, value: { intValue: count } });
  inferred.push(Attr.MUTATION_TARGET_COUNT);
}

/** A read's (or a tool of unknown effect's) completeness, from its recorded result; none recorded: unknown. */
function completeness(
  out: KeyValue[],
  inferred: string[],
  span: Span,
  policy: ToolPolicy | undefined,
  resultText: string | undefined,
) {
  if (span.status?.code === STATUS_ERROR) {
    out.push(str(Attr.RESULT_STATUS, 'error'), { key: Attr.RESULT_COMPLETE, value: { boolValue: false } });
    inferred.push(Attr.RESULT_STATUS, Attr.RESULT_COMPLETE);
    return;
  }
  const judged = judgeResult(resultText, policy);
  if (judged === undefined) return;
  if ('error' in judged) {
    out.push(str(Attr.RESULT_STATUS, 'error'), { key: Attr.RESULT_COMPLETE, value: { boolValue: false } });
    inferred.push(Attr.RESULT_STATUS, Attr.RESULT_COMPLETE);
    return;
  }
  const { result } = judged;
  const c = result.completeness;
  out.push(
    str(Attr.RESULT_STATUS, result.status),
    { key: Attr.RESULT_COMPLETE, value: { boolValue: c.complete } },
    { key: Attr.RESULT_REASONS, value: strings(c.reasons.map((r) => r.code)) },
    str(Attr.RESULT_CONTINUATION, c.continuation.kind),
  );
  inferred.push(Attr.RESULT_STATUS, Attr.RESULT_COMPLETE, Attr.RESULT_REASONS, Attr.RESULT_CONTINUATION);
  if (result.items !== undefined) {
    out.push({ key: Attr.RESULT_ITEM_COUNT, value: { intValue: result.items.length } });
    inferred.push(Attr.RESULT_ITEM_COUNT);
  }
}

function str(key: string, s: string): KeyValue {
  return { key, value: { stringValue: s } };
}

function strings(list: readonly string[]): AnyValue {
  return { arrayValue: { values: list.map((s) => ({ stringValue: s })) } };
}
