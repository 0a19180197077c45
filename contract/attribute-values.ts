/**
 * How every stage judges the value of a `tooltrail.*` contract attribute and decides whether a span is a tool call.
 * The collector (to tell the sender) and the ingest (to flag the stored row) apply these same rules, so they agree
 * on every span. A malformed attribute never drops a span: it is kept, flagged, and either coerced (only where the
 * coercion cannot make a result look more complete or safer than it is) or counted as absent, i.e. unknown.
 */
import {
  ATTRIBUTE_TYPES,
  Attr,
  type AttrName,
  type AttrValueType,
  ENUM_VALUES,
  EXECUTE_TOOL,
  GenAi,
} from './attributes.ts';
import type { PipelineWarningCode } from './codes.ts';

/** The shape of an OTLP AnyValue this module reads (platform/otlp's decoded values have it). */
export interface ContractValue {
  stringValue?: string | null;
  boolValue?: boolean | null;
  intValue?: { low: number; high: number } | number | string | null;
  doubleValue?: number | null;
  arrayValue?: { values: readonly ContractValue[] } | null;
  kvlistValue?: unknown;
  bytesValue?: unknown;
}

export interface ContractKeyValue {
  key: string | null;
  value?: ContractValue | null;
}

export type ContractVerdict =
  | { kind: 'ok' }
  /** A safe coercion: `int` is the integer's decimal text, `strings` the list. */
  | { kind: 'coerced'; code: 'CONTRACT_ATTRIBUTE_COERCED'; message: string; int?: string; strings?: string[] }
  /** Not used: the attribute counts as absent (for the decision field: completeness unknown). */
  | { kind: 'invalid'; code: 'INVALID_CONTRACT_ATTRIBUTE'; message: string };

const OK: ContractVerdict = { kind: 'ok' };

/** The contract attributes whose value the rules judge on spans (the tenant is the collector's to stamp). */
export function isJudgedContractKey(key: string): key is AttrName {
  return key !== Attr.TENANT && Object.hasOwn(ATTRIBUTE_TYPES, key);
}

function kindOf(v: ContractValue | null | undefined): string {
  if (!v) return 'empty';
  if (v.stringValue != null) return 'string';
  if (v.boolValue != null) return 'bool';
  if (v.intValue != null) return 'int';
  if (v.doubleValue != null) return 'double';
  if (v.arrayValue != null) {
    const other = v.arrayValue.values.find((x) => x.stringValue == null);
    return other === undefined ? 'string[]' : `array holding ${kindOf(other)}`;
  }
  if (v.kvlistValue != null) return 'kvlist';
  if (v.bytesValue != null) return 'bytes';
  return 'empty';
}

function shown(v: ContractValue | null | undefined): string {
  if (v?.stringValue != null) return ` "${v.stringValue.slice(0, 80)}"`;
  if (v?.doubleValue != null) return ` ${v.doubleValue}`;
  if (v?.boolValue != null) return ` ${v.boolValue}`;
  return '';
}

function matches(v: ContractValue | null | undefined, type: AttrValueType): boolean {
  switch (type) {
    case 'string':
      return v?.stringValue != null;
    case 'bool':
      return v?.boolValue != null;
    case 'int':
      return v?.intValue != null;
    case 'string[]':
      return v?.arrayValue?.values.every((x) => x.stringValue != null) ?? false;
  }
}

/** What a malformed value means for the row, in the sender's words. */
function consequence(key: AttrName): string {
  return key === Attr.RESULT_COMPLETE ? 'completeness counted as unknown' : 'counted as absent';
}

/** The comma-separated parts of a string, trimmed, empty ones dropped. */
export function commaParts(s: string): string[] {
  return s
    .split(',')
    .map((p) => p.trim())
    .filter((p) => p !== '');
}

/**
 * The verdict on one contract attribute's value. Safe coercions: an integer-valued double for an int (the same
 * count), a string for a string[] (its comma-separated parts: more reasons or warnings never make a result look
 * more complete). Everything else is invalid: a string, int or double for the decision field stays unknown,
 * never false or true; an enumerated value outside its list is unknown.
 */
export function judgeContractAttribute(key: AttrName, v: ContractValue | null | undefined): ContractVerdict {
  const type = ATTRIBUTE_TYPES[key];
  if (matches(v, type)) {
    const allowed = ENUM_VALUES[key];
    const s = v?.stringValue;
    if (allowed && s != null && !allowed.includes(s)) {
      return {
        kind: 'invalid',
        code: 'INVALID_CONTRACT_ATTRIBUTE',
        message: `${key} must be one of ${allowed.join('|')}, got "${s.slice(0, 40)}"; ${consequence(key)}`,
      };
    }
    return OK;
  }
  const got = kindOf(v);
  if (type === 'int' && v?.doubleValue != null && Number.isSafeInteger(v.doubleValue)) {
    const int = String(v.doubleValue);
    return {
      kind: 'coerced',
      code: 'CONTRACT_ATTRIBUTE_COERCED',
      message: `${key} must be int, got double ${v.doubleValue}; stored as ${int}`,
      int,
    };
  }
  if (type === 'string[]' && v?.stringValue != null) {
    const strings = commaParts(v.stringValue);
    return {
      kind: 'coerced',
      code: 'CONTRACT_ATTRIBUTE_COERCED',
      message: `${key} must be string[], got string${shown(v)}; stored as ${JSON.stringify(strings).slice(0, 120)}`,
      strings,
    };
  }
  return {
    kind: 'invalid',
    code: 'INVALID_CONTRACT_ATTRIBUTE',
    message: `${key} must be ${type}, got ${got}${shown(v)}; ${consequence(key)}`,
  };
}

export type ToolSpanVerdict =
  | { kind: 'tool' }
  | { kind: 'inferred'; code: Extract<PipelineWarningCode, 'TOOL_SPAN_INFERRED'>; message: string }
  | { kind: 'other' };

const TOOL: ToolSpanVerdict = { kind: 'tool' };
const OTHER: ToolSpanVerdict = { kind: 'other' };

/** Contract attributes whose presence makes a span a tool call (the tenant and semconv version say nothing). */
export function marksToolSpan(key: string): boolean {
  return key !== Attr.TENANT && key !== Attr.SEMCONV_VERSION && Object.hasOwn(ATTRIBUTE_TYPES, key);
}

/**
 * A span is a tool call when `gen_ai.operation.name` is `execute_tool`, and also, flagged, when it carries a
 * `tooltrail.*` contract attribute, or `gen_ai.tool.name` without any operation name: what it carries says so.
 */
export function recognizeToolSpan(attrs: readonly ContractKeyValue[] | null | undefined): ToolSpanVerdict {
  if (!attrs) return OTHER;
  let operation: ContractValue | null | undefined;
  let hasOperation = false;
  let toolName = false;
  let contract: string | undefined;
  for (const kv of attrs) {
    const key = kv.key;
    if (key === GenAi.OPERATION_NAME) {
      if (kv.value?.stringValue === EXECUTE_TOOL) return TOOL;
      hasOperation = true;
      operation = kv.value;
    } else if (key === GenAi.TOOL_NAME) toolName = true;
    else if (contract === undefined && key != null && marksToolSpan(key)) contract = key;
  }
  if (contract === undefined && !(toolName && !hasOperation)) return OTHER;
  const op = hasOperation
    ? `${GenAi.OPERATION_NAME} is ${kindOf(operation) === 'string' ? `"${operation?.stringValue?.slice(0, 40)}"` : kindOf(operation)}, not "${EXECUTE_TOOL}"`
    : `${GenAi.OPERATION_NAME} is absent`;
  const by = contract ?? GenAi.TOOL_NAME;
  return { kind: 'inferred', code: 'TOOL_SPAN_INFERRED', message: `${op}; stored as a tool call (it carries ${by})` };
}
