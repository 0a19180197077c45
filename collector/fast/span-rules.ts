/**
 * The collector's validation rules judged on the reader's view of a span (platform/otlp/reader), for the fast path:
 * true when the span is valid and needs no flag and no change, so it can be forwarded as the bytes it came in.
 * Anything else (a span to reject, to flag, or to change) is the general path's to judge.
 */
import {
  ATTRIBUTE_TYPES as ATTRIBUTE_TYPES$,
  Attr as Attr$,
  type AttrName,
  type AttrValueType,
  ENUM_VALUES as ENUM_VALUES$,
  EXECUTE_TOOL as EXECUTE_TOOL$,
  GenAi as GenAi$,
  marksToolSpan as marksToolSpan$,
} from '../../contract/index.ts';
import {
  links as links$,
  slots as slots$,
  span as span$,
  V_BOOL as V_BOOL$,
  V_INT as V_INT$,
  V_STRING as V_STRING$,
  V_STRINGS as V_STRINGS$,
} from '../../platform/otlp/reader/index.ts';

// Imports copied to local consts: 12-18% less CPU on these paths (ingest/README.md, "Local bindings").
const ATTRIBUTE_TYPES = ATTRIBUTE_TYPES$;
const Attr = Attr$;
const ENUM_VALUES = ENUM_VALUES$;
const EXECUTE_TOOL = EXECUTE_TOOL$;
const GenAi = GenAi$;
const marksToolSpan = marksToolSpan$;
const links = links$;
const slots = slots$;
const span = span$;
const V_BOOL = V_BOOL$;
const V_INT = V_INT$;
const V_STRING = V_STRING$;
const V_STRINGS = V_STRINGS$;

/** `tooltrail.` as bytes, to test attribute keys without making strings of them. */
const PREFIX = Buffer.from('tooltrail.', 'latin1');

/** The contract's `tooltrail.*` attributes as bytes: keys and enum values are compared in place, never decoded. */
interface ContractRule {
  key: string;
  bytes: Buffer;
  kind: number;
  allowed: Buffer[] | undefined;
  /** Its presence makes a span a tool call (contract/attribute-values.ts `marksToolSpan`). */
  marksTool: boolean;
}

const KIND_OF: Record<AttrValueType, number> = { string: V_STRING, bool: V_BOOL, int: V_INT, 'string[]': V_STRINGS };

/** The rules by key length in bytes (a few per length). */
const RULES_BY_LENGTH: ContractRule[][] = [];
for (const [key, type] of Object.entries(ATTRIBUTE_TYPES)) {
  const rule: ContractRule = {
    key,
    bytes: Buffer.from(key, 'utf8'),
    kind: KIND_OF[type],
    allowed: ENUM_VALUES[key as AttrName]?.map((v) => Buffer.from(v, 'utf8')),
    marksTool: marksToolSpan(key),
  };
  const list = RULES_BY_LENGTH[rule.bytes.length] ?? [];
  list.push(rule);
  RULES_BY_LENGTH[rule.bytes.length] = list;
}

const K_OPERATION = Buffer.from(GenAi.OPERATION_NAME, 'utf8');
const K_TOOL_NAME = Buffer.from(GenAi.TOOL_NAME, 'utf8');
const V_EXECUTE_TOOL = Buffer.from(EXECUTE_TOOL, 'utf8');

let B: Buffer = Buffer.alloc(0);

function equalsBytes(bytes: Buffer, start: number, len: number): boolean {
  if (len !== bytes.length) return false;
  const b = B;
  for (let i = 0; i < len; i++) if (b[start + i] !== bytes[i]) return false;
  return true;
}

function contractRule(start: number, len: number): ContractRule | undefined {
  const candidates = RULES_BY_LENGTH[len];
  if (candidates === undefined || len < PREFIX.length) return undefined;
  const b = B;
  for (let j = 0; j < PREFIX.length; j++) if (b[start + j] !== PREFIX[j]) return undefined;
  next: for (let i = 0; i < candidates.length; i++) {
    const rule = candidates[i] as ContractRule;
    const bytes = rule.bytes;
    for (let j = PREFIX.length; j < bytes.length; j++) if (b[start + j] !== bytes[j]) continue next;
    return rule;
  }
  return undefined;
}

function isZero(start: number, n: number): boolean {
  for (let i = start; i < start + n; i++) if (B[i] !== 0) return false;
  return true;
}

/** An id of exactly `n` bytes, not all zero. */
const validId = (at: number, len: number, n: number) => at >= 0 && len === n && !isZero(at, n);

/**
 * The span's attributes: non-empty keys (events' and links' too), contract attributes of their contract type and
 * values, no span-level tenant claim (the general path removes it), not a tool call only by what it carries.
 */
function attributesPlain(): boolean {
  const { key, keyLen, kind, a, b, count } = slots;
  for (let i = span.attrFrom; i < count; i++) if (keyLen[i] === 0) return false;
  let operation = false;
  let executeTool = false;
  let toolName = false;
  let contract = false;
  for (let i = span.attrFrom; i < span.attrTo; i++) {
    const ks = key[i] as number;
    const kl = keyLen[i] as number;
    const rule = contractRule(ks, kl);
    if (rule === undefined) {
      if (equalsBytes(K_OPERATION, ks, kl)) {
        operation = true;
        if (kind[i] === V_STRING && equalsBytes(V_EXECUTE_TOOL, a[i] as number, b[i] as number)) executeTool = true;
      } else if (equalsBytes(K_TOOL_NAME, ks, kl)) toolName = true;
      continue;
    }
    // A malformed value is flagged, a span-level tenant claim removed: both by the general path.
    if (rule.key === Attr.TENANT || kind[i] !== rule.kind) return false;
    if (rule.allowed) {
      let allowed = false;
      for (const v of rule.allowed) if (equalsBytes(v, a[i] as number, b[i] as number)) allowed = true;
      if (!allowed) return false;
    }
    if (rule.marksTool) contract = true;
  }
  return executeTool || !(contract || (toolName && !operation));
}

/** Whether the span in `span` (of `body`) passes every validation rule unchanged and unflagged. */
export function spanPlain(body: Buffer): boolean {
  B = body;
  try {
    if (!validId(span.traceId, span.traceIdLen, 16) || !validId(span.spanId, span.spanIdLen, 8)) return false;
    if (span.parent >= 0 && span.parentLen !== 0 && span.parentLen !== 8) return false;
    if (span.kind > 5 || span.statusCode > 2 || span.start < 0 || span.end < 0) return false;
    const sl = body.readUInt32LE(span.start);
    const sh = body.readUInt32LE(span.start + 4);
    const el = body.readUInt32LE(span.end);
    const eh = body.readUInt32LE(span.end + 4);
    if ((sh === 0 && sl === 0) || (eh === 0 && el === 0)) return false;
    if (eh < sh || (eh === sh && el < sl)) return false;
    for (let k = 0; k < links.count; k++) {
      const l = links.list[k] as (typeof links.list)[number];
      if (l.traceId < 0 || l.traceIdLen !== 16 || l.spanId < 0 || l.spanIdLen !== 8) return false;
    }
    return attributesPlain();
  } finally {
    B = EMPTY;
  }
}

const EMPTY = Buffer.alloc(0);
