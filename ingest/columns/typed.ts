/**
 * The tool_calls columns typed from attributes (ingest/flatten.ts COLUMN_SETTERS) and the keys and values the
 * column path compares in place, as bytes and as the reader's key hashes.
 */
import { Buffer } from 'node:buffer';
import {
  AiSdk as AiSdk$,
  ATTRIBUTE_TYPES as ATTRIBUTE_TYPES$,
  Attr as Attr$,
  type AttrName,
  type AttrValueType,
  CONTENT_KEY_PREFIXES as CONTENT_KEY_PREFIXES$,
  CONTENT_KEYS as CONTENT_KEYS$,
  ENUM_VALUES as ENUM_VALUES$,
  EXECUTE_TOOL as EXECUTE_TOOL$,
  GenAi as GenAi$,
  isJudgedContractKey as isJudgedContractKey$,
  MAP_ONLY_ATTRIBUTES as MAP_ONLY_ATTRIBUTES$,
  MCP_TOOLS_CALL as MCP_TOOLS_CALL$,
  McpAttr as McpAttr$,
  marksToolSpan as marksToolSpan$,
  OpenInference as OpenInference$,
  OpenLLMetry as OpenLLMetry$,
  OtelResource as OtelResource$,
  WarningEvent as WarningEvent$,
} from '../../contract/index.ts';
import {
  keyHash as keyHash$,
  V_BOOL as V_BOOL$,
  V_INT as V_INT$,
  V_STRING as V_STRING$,
  V_STRINGS as V_STRINGS$,
} from '../../platform/otlp/reader/index.ts';
import { TOOL_CALLS as TOOL_CALLS$ } from './layout.ts';
import { encodedString as encodedString$ } from './stream.ts';

// Imports copied to local consts: 12-18% less CPU on these paths (ingest/README.md, "Local bindings").
const ATTRIBUTE_TYPES = ATTRIBUTE_TYPES$;
const Attr = Attr$;
const ENUM_VALUES = ENUM_VALUES$;
const EXECUTE_TOOL = EXECUTE_TOOL$;
const AiSdk = AiSdk$;
const CONTENT_KEY_PREFIXES = CONTENT_KEY_PREFIXES$;
const CONTENT_KEYS = CONTENT_KEYS$;
const GenAi = GenAi$;
const MCP_TOOLS_CALL = MCP_TOOLS_CALL$;
const McpAttr = McpAttr$;
const OpenInference = OpenInference$;
const OpenLLMetry = OpenLLMetry$;
const isJudgedContractKey = isJudgedContractKey$;
const MAP_ONLY_ATTRIBUTES = MAP_ONLY_ATTRIBUTES$;
const marksToolSpan = marksToolSpan$;
const OtelResource = OtelResource$;
const WarningEvent = WarningEvent$;
const keyHash = keyHash$;
const TOOL_CALLS = TOOL_CALLS$;
const encodedString = encodedString$;

/**
 * Typed tool_calls attributes (ingest/flatten.ts COLUMN_SETTERS): the kind of value the column takes, and its
 * stream. A value of another kind goes to `attributes` as text, as flatten does.
 */
type Typed =
  | { kind: 'operation' }
  | { kind: 'string'; stream: number }
  | { kind: 'complete' }
  | { kind: 'strings'; stream: number }
  | { kind: 'int'; stream: number }
  | { kind: 'sequence' };

const TYPED: [string, Typed][] = [
  [GenAi.OPERATION_NAME, { kind: 'operation' }],
  [GenAi.TOOL_NAME, { kind: 'string', stream: TOOL_CALLS.s('tool_name') }],
  [GenAi.TOOL_CALL_ID, { kind: 'string', stream: TOOL_CALLS.s('tool_call_id') }],
  [GenAi.CONVERSATION_ID, { kind: 'string', stream: TOOL_CALLS.s('session_id') }],
  [GenAi.AGENT_NAME, { kind: 'string', stream: TOOL_CALLS.s('agent_name') }],
  [GenAi.AGENT_ID, { kind: 'string', stream: TOOL_CALLS.s('agent_id') }],
  [Attr.EFFECT, { kind: 'string', stream: TOOL_CALLS.s('effect') }],
  [Attr.RESULT_STATUS, { kind: 'string', stream: TOOL_CALLS.s('result_status') }],
  [Attr.RESULT_COMPLETE, { kind: 'complete' }],
  [Attr.RESULT_REASONS, { kind: 'strings', stream: TOOL_CALLS.s('result_reasons') }],
  [Attr.RESULT_ITEM_COUNT, { kind: 'int', stream: TOOL_CALLS.s('result_item_count') }],
  [Attr.RESULT_CONTINUATION, { kind: 'string', stream: TOOL_CALLS.s('result_continuation') }],
  [Attr.SCOPE_RESOURCE, { kind: 'string', stream: TOOL_CALLS.s('scope_resource') }],
  [Attr.SCOPE_VISIBILITY, { kind: 'string', stream: TOOL_CALLS.s('scope_visibility') }],
  [Attr.SCOPE_SNAPSHOT, { kind: 'string', stream: TOOL_CALLS.s('scope_snapshot') }],
  [Attr.WARNINGS, { kind: 'strings', stream: TOOL_CALLS.s('warnings') }],
  [Attr.MUTATION_BASIS, { kind: 'string', stream: TOOL_CALLS.s('mutation_basis') }],
  [Attr.MUTATION_TARGET_COUNT, { kind: 'int', stream: TOOL_CALLS.s('mutation_target_count') }],
  [Attr.MUTATION_EVIDENCE_SNAPSHOTS, { kind: 'strings', stream: TOOL_CALLS.s('evidence_snapshots') }],
  [Attr.MUTATION_EVIDENCE_CALL_IDS, { kind: 'strings', stream: TOOL_CALLS.s('evidence_call_ids') }],
  [Attr.GUARD_DECISION, { kind: 'string', stream: TOOL_CALLS.s('guard_decision') }],
  [Attr.SESSION_SEQUENCE, { kind: 'sequence' }],
];
export const TYPED_KEYS = TYPED.map(([k]) => Buffer.from(k, 'utf8'));
const TYPED_SPECS = TYPED.map(([, t]) => t);
export const STRING_COLUMNS = TYPED_SPECS.flatMap((t) => (t.kind === 'string' ? [t.stream] : []));
export const STRINGS_COLUMNS = TYPED_SPECS.flatMap((t) => (t.kind === 'strings' ? [t.stream] : []));
const TYPED_IDS: readonly number[] = TYPED_SPECS.map((_, i) => i);
/** Typed keys by hash (a hit is then compared byte for byte). */
export const TYPED_BY_HASH = new Map<number, number>();
for (const i of TYPED_IDS) {
  const h = keyHash(TYPED_KEYS[i]!);
  if (TYPED_BY_HASH.has(h)) throw new Error('ingest/columns: typed keys share a hash');
  TYPED_BY_HASH.set(h, i);
}
const STRING_COLUMN_SLOT = new Map(STRING_COLUMNS.map((s, i) => [s, i]));
const STRINGS_COLUMN_SLOT = new Map(STRINGS_COLUMNS.map((s, i) => [s, i]));
export const K_OPERATION_KIND = 0;
export const K_STRING = 1;
export const K_COMPLETE = 2;
export const K_STRINGS = 3;
export const K_ITEM_COUNT = 4;
export const K_TARGET_COUNT = 5;
export const K_SEQUENCE = 6;
/** Per typed key: its kind (above) and its slot in stringSlot / stringsSlot. */
export const TYPED_KIND = Int8Array.from(TYPED_SPECS, (t) =>
  t.kind === 'operation'
    ? K_OPERATION_KIND
    : t.kind === 'string'
      ? K_STRING
      : t.kind === 'complete'
        ? K_COMPLETE
        : t.kind === 'strings'
          ? K_STRINGS
          : t.kind === 'sequence'
            ? K_SEQUENCE
            : t.stream === TOOL_CALLS.s('result_item_count')
              ? K_ITEM_COUNT
              : K_TARGET_COUNT,
);
export const TYPED_SLOT = Int32Array.from(TYPED_SPECS, (t) =>
  t.kind === 'string'
    ? STRING_COLUMN_SLOT.get(t.stream)!
    : t.kind === 'strings'
      ? STRINGS_COLUMN_SLOT.get(t.stream)!
      : -1,
);
/**
 * Per typed key: 1 when it is a `tooltrail.*` contract attribute (a value of another kind is flagged by flatten:
 * general path), 2 when its presence also makes a span a tool call; its allowed values when enumerated.
 */
export const TYPED_CONTRACT = Uint8Array.from(TYPED, ([k]) =>
  isJudgedContractKey(k) ? (marksToolSpan(k) ? 2 : 1) : 0,
);
export const TYPED_ALLOWED: (Buffer[] | undefined)[] = TYPED.map(([k]) =>
  ENUM_VALUES[k as AttrName]?.map((v) => Buffer.from(v, 'utf8')),
);
export const T_TOOL_NAME = TYPED.findIndex(([k]) => k === GenAi.TOOL_NAME);
/** A contract attribute without a column (contract MAP_ONLY_ATTRIBUTES): judged all the same, kept in `attributes`. */
export interface MapOnlyRule {
  key: Buffer;
  /** The reader's value kind of its contract type. */
  kind: number;
  allowed: Buffer[] | undefined;
}
const READER_KIND: Readonly<Record<AttrValueType, number>> = {
  string: V_STRING$,
  bool: V_BOOL$,
  int: V_INT$,
  'string[]': V_STRINGS$,
};
/** Map-only contract attributes by key hash (a hit is then compared byte for byte). */
export const MAP_ONLY_BY_HASH = new Map<number, MapOnlyRule>();
for (const k of MAP_ONLY_ATTRIBUTES) {
  const key = Buffer.from(k, 'utf8');
  const h = keyHash(key);
  if (MAP_ONLY_BY_HASH.has(h) || TYPED_BY_HASH.has(h)) throw new Error('ingest/columns: contract keys share a hash');
  MAP_ONLY_BY_HASH.set(h, {
    key,
    kind: READER_KIND[ATTRIBUTE_TYPES[k]],
    allowed: ENUM_VALUES[k]?.map((v) => Buffer.from(v, 'utf8')),
  });
}
/**
 * Another emitter's tool-span marks (ingest/emitters/recognize.ts): the key, and the string value that makes the span
 * a tool call (undefined: the key's presence does). Such a span takes the general path, which normalises it.
 */
export interface EmitterMark {
  key: Buffer;
  value: Buffer | undefined;
  /** A content key (contract/emitters.ts CONTENT_KEYS): only a span that is not a tool call declines for it. */
  content: boolean;
}
export const EMITTER_MARKS: readonly EmitterMark[] = [
  ...[
    [OpenInference.SPAN_KIND, OpenInference.TOOL],
    [OpenLLMetry.SPAN_KIND, OpenLLMetry.TOOL],
    [AiSdk.TOOL_NAME, undefined],
    [McpAttr.METHOD_NAME, MCP_TOOLS_CALL],
  ].map(([k, v]) => ({
    key: Buffer.from(k as string),
    value: v === undefined ? undefined : Buffer.from(v),
    content: false,
  })),
  ...[...CONTENT_KEYS].map((k) => ({ key: Buffer.from(k), value: undefined, content: true })),
];
/** CONTENT_KEY_PREFIXES as bytes: a key that starts with one (and a digit after an indexed one) is content. */
export const CONTENT_PREFIXES = CONTENT_KEY_PREFIXES.map((p) => ({ bytes: Buffer.from(p.prefix), indexed: p.indexed }));
/** isToolSpan's one lookup per attribute: a typed key's index (>= 0), or -1 - i for EMITTER_MARKS[i]. */
export const TOOL_SHAPE_BY_HASH = new Map<number, number>(TYPED_BY_HASH);
EMITTER_MARKS.forEach((m, i) => {
  const h = keyHash(m.key);
  if (TOOL_SHAPE_BY_HASH.has(h)) throw new Error('ingest/columns: an emitter mark shares a hash with a typed key');
  TOOL_SHAPE_BY_HASH.set(h, -1 - i);
});
export const T_OPERATION = TYPED.findIndex(([k]) => k === GenAi.OPERATION_NAME);
export const SLOT_TOOL_NAME = STRING_COLUMN_SLOT.get(TOOL_CALLS.s('tool_name'))!;
export const SLOT_AGENT_NAME = STRING_COLUMN_SLOT.get(TOOL_CALLS.s('agent_name'))!;
export const SLOT_SESSION_ID = STRING_COLUMN_SLOT.get(TOOL_CALLS.s('session_id'))!;

export const K_TENANT = Buffer.from(Attr.TENANT);
export const K_SERVICE = Buffer.from(OtelResource.SERVICE_NAME);
export const V_EXECUTE_TOOL = Buffer.from(EXECUTE_TOOL);
export const WARNING_EVENT = Buffer.from(WarningEvent.NAME);
export const K_CODE = Buffer.from(WarningEvent.CODE);
export const K_SOURCE = Buffer.from(WarningEvent.SOURCE);
export const K_MESSAGE = Buffer.from(WarningEvent.MESSAGE);
export const K_PROTO = Buffer.from('__proto__');
export const SPAN_KINDS = ['Unspecified', 'Internal', 'Server', 'Client', 'Producer', 'Consumer'].map(encodedString);
export const STATUS_CODES = ['Unset', 'Ok', 'Error'].map(encodedString);
export const TRUE = encodedString('true');
export const FALSE = encodedString('false');
