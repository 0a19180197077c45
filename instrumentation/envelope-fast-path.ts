/**
 * The hot path of envelope validation: the rules of `ToolResultRuntimeSchema` (contract/envelope.ts) checked by
 * hand for the common, well-formed envelope, about ten times cheaper than zod. It never decides a failure: anything
 * it is not sure of (an invalid field, a key present with `undefined`) returns `undefined`, and
 * the caller asks zod, whose verdict and messages stay the authority. Its output equals zod's (unknown keys dropped,
 * defaults applied, nested objects copied); test/unit/instrumentation/envelope-fast-path.property.test.ts checks
 * both against each other on generated envelopes, valid and damaged.
 */

import type { Continuation, Pagination, Reason, Scope, ToolResult, Warning } from '../contract/index.ts';
import { REASON_CODES, WARNING_CODES } from '../contract/index.ts';

const REASONS: ReadonlySet<string> = new Set(REASON_CODES);
const WARNINGS: ReadonlySet<string> = new Set(WARNING_CODES);

type Obj = Record<string, unknown>;

/** A validated copy of `value`, or undefined when zod must decide. */
export function fastParseToolResult(value: unknown): ToolResult | undefined {
  // Every property is read by name (never `obj[key]`): keyed access over many shapes is V8's slow path.
  if (!isObject(value)) return undefined;
  const c = value.completeness;
  if (!isObject(c)) return undefined;
  const status = value.status;
  let completeness: ToolResult['completeness'];
  if (status === 'complete') {
    if (c.complete !== true) return undefined;
    const reasons = c.reasons;
    if (reasons === undefined ? 'reasons' in c : !(Array.isArray(reasons) && reasons.length === 0)) return undefined;
    const k = c.continuation;
    if (k === undefined ? 'continuation' in c : !(isObject(k) && k.kind === 'none')) return undefined;
    completeness = { complete: true, reasons: [], continuation: { kind: 'none' } };
  } else if (status === 'partial' || status === 'error') {
    if (c.complete !== false) return undefined;
    const reasons = reasonList(c, status === 'partial');
    if (reasons === undefined) return undefined;
    const k = c.continuation;
    let continuation: Continuation | undefined;
    if (k === undefined) continuation = 'continuation' in c ? undefined : { kind: 'none' };
    else continuation = copyContinuation(k);
    if (continuation === undefined) return undefined;
    completeness = { complete: false, reasons, continuation } as ToolResult['completeness'];
  } else {
    return undefined;
  }
  const out: Obj = { status, completeness };
  if (status === 'error') {
    const e = value.error;
    if (!isObject(e) || !nonEmptyString(e.type) || typeof e.message !== 'string') return undefined;
    out.error = { type: e.type, message: e.message };
  }
  const warnings = value.warnings;
  if (warnings === undefined) {
    // zod's default: absent or undefined, the same empty list.
    out.warnings = [];
  } else {
    const list = warningList(warnings);
    if (list === undefined) return undefined;
    out.warnings = list;
  }
  const version = value.contract_version;
  if (version !== undefined) {
    if (typeof version !== 'string') return undefined;
    out.contract_version = version;
  } else if ('contract_version' in value) return undefined;
  const items = value.items;
  if (items !== undefined) {
    if (!Array.isArray(items)) return undefined;
    out.items = items;
  } else if ('items' in value) return undefined;
  const data = value.data;
  if (data !== undefined) out.data = data;
  else if ('data' in value) return undefined;
  const sc = value.scope;
  if (sc !== undefined) {
    const copy = copyScope(sc);
    if (copy === undefined) return undefined;
    out.scope = copy;
  } else if ('scope' in value) return undefined;
  const pg = value.pagination;
  if (pg !== undefined) {
    const copy = copyPagination(pg);
    if (copy === undefined) return undefined;
    out.pagination = copy;
  } else if ('pagination' in value) return undefined;
  return out as ToolResult;
}

function reasonList(c: Obj, atLeastOne: boolean): Reason[] | undefined {
  const list = c.reasons;
  if (list === undefined) return atLeastOne || 'reasons' in c ? undefined : [];
  if (!Array.isArray(list) || (atLeastOne && list.length === 0)) return undefined;
  const out: Reason[] = new Array(list.length);
  for (let i = 0; i < list.length; i++) {
    const r: unknown = list[i];
    if (!isObject(r) || typeof r.code !== 'string' || !REASONS.has(r.code)) return undefined;
    const reason: Obj = { code: r.code };
    const { message, source, limit } = r;
    if (message !== undefined) {
      if (typeof message !== 'string') return undefined;
      reason.message = message;
    } else if ('message' in r) return undefined;
    if (source !== undefined) {
      if (!nonEmptyString(source)) return undefined;
      reason.source = source;
    } else if ('source' in r) return undefined;
    if (limit !== undefined) {
      if (!isInt(limit) || limit < 0) return undefined;
      reason.limit = limit;
    } else if ('limit' in r) return undefined;
    out[i] = reason as Reason;
  }
  return out;
}

function warningList(list: unknown): Warning[] | undefined {
  if (!Array.isArray(list)) return undefined;
  const out: Warning[] = new Array(list.length);
  for (let i = 0; i < list.length; i++) {
    const w: unknown = list[i];
    if (!isObject(w) || typeof w.code !== 'string' || !WARNINGS.has(w.code)) return undefined;
    if (typeof w.message !== 'string' || !nonEmptyString(w.source)) return undefined;
    out[i] = { code: w.code, message: w.message, source: w.source } as Warning;
  }
  return out;
}

function copyContinuation(k: unknown): Continuation | undefined {
  if (!isObject(k)) return undefined;
  switch (k.kind) {
    case 'none':
      return { kind: 'none' };
    case 'next_cursor':
      return nonEmptyString(k.cursor) ? { kind: 'next_cursor', cursor: k.cursor } : undefined;
    case 'retry_after': {
      const { after_seconds: after, cursor } = k;
      if (!isFiniteNumber(after) || after < 0) return undefined;
      if (cursor !== undefined)
        return nonEmptyString(cursor) ? { kind: 'retry_after', after_seconds: after, cursor } : undefined;
      return 'cursor' in k ? undefined : { kind: 'retry_after', after_seconds: after };
    }
    case 'narrow_query': {
      const hint = k.hint;
      if (hint !== undefined) return typeof hint === 'string' ? { kind: 'narrow_query', hint } : undefined;
      return 'hint' in k ? undefined : { kind: 'narrow_query' };
    }
    case 'retry_with_deadline': {
      const min = k.minimum_seconds;
      if (min !== undefined) {
        return isFiniteNumber(min) && min > 0 ? { kind: 'retry_with_deadline', minimum_seconds: min } : undefined;
      }
      return 'minimum_seconds' in k ? undefined : { kind: 'retry_with_deadline' };
    }
    default:
      return undefined;
  }
}

function copyScope(v: unknown): Scope | undefined {
  if (!isObject(v) || !nonEmptyString(v.resource)) return undefined;
  const out: Scope = { resource: v.resource };
  const { visibility, snapshot } = v;
  if (visibility !== undefined) {
    if (!nonEmptyString(visibility)) return undefined;
    out.visibility = visibility;
  } else if ('visibility' in v) return undefined;
  if (snapshot !== undefined) {
    if (!nonEmptyString(snapshot)) return undefined;
    out.snapshot = snapshot;
  } else if ('snapshot' in v) return undefined;
  return out;
}

function copyPagination(v: unknown): Pagination | undefined {
  if (!isObject(v)) return undefined;
  const { pages, short_pages: short, requested_page_size: size } = v;
  if (!isInt(pages) || pages < 0 || !isInt(short) || short < 0) return undefined;
  const out: Pagination = { pages, short_pages: short };
  if (size !== undefined) {
    if (!isInt(size) || size <= 0) return undefined;
    out.requested_page_size = size;
  } else if ('requested_page_size' in v) return undefined;
  return out;
}

/** zod's own test for an object (`util.isObject`): not null, not an array. */
function isObject(v: unknown): v is Obj {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function nonEmptyString(v: unknown): v is string {
  return typeof v === 'string' && v.length > 0;
}

function isFiniteNumber(v: unknown): v is number {
  return typeof v === 'number' && Number.isFinite(v);
}

/** zod's `.int()`: a safe integer. */
function isInt(v: unknown): v is number {
  return Number.isSafeInteger(v);
}
