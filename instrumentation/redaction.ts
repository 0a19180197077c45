/**
 * Redaction: tool arguments and results are never recorded raw by default. A field is recorded only when it is
 * named (opt-in), either as is (`raw`) or hashed (`hash`). Paths are dot-separated; `*` walks every element of
 * an array (or every value of an object): `items.*.id`.
 */
import { createHash, createHmac } from 'node:crypto';

export type FieldPolicy = 'raw' | 'hash';
/** Field path -> how to record it. An empty map records nothing. */
export type FieldPolicies = Readonly<Record<string, FieldPolicy>>;

export interface Redactor {
  /** Whether `hash` fields are keyed (HMAC-SHA256) rather than plain SHA-256. */
  readonly keyed: boolean;
  /** JSON of the opted-in fields of `value`, or undefined when nothing is opted in or nothing matched. */
  project(value: unknown, policies: FieldPolicies): string | undefined;
}

/**
 * Without a key, hashes are plain SHA-256 (`sha256:`), which a dictionary reverses for low-entropy values such as
 * e-mail addresses; with a key they are HMAC-SHA256 (`hmac-sha256:`).
 */
export function createRedactor(options: { hashKey?: string; maxChars: number }): Redactor {
  const hash = (v: unknown): string => {
    const text = typeof v === 'string' ? v : (JSON.stringify(v) ?? 'undefined');
    return options.hashKey === undefined
      ? `sha256:${createHash('sha256').update(text).digest('hex')}`
      : `hmac-sha256:${createHmac('sha256', options.hashKey).update(text).digest('hex')}`;
  };
  return {
    keyed: options.hashKey !== undefined,
    project(value, policies) {
      const paths = Object.entries(policies);
      if (paths.length === 0) return undefined;
      let out: unknown;
      for (const [path, policy] of paths) {
        // Anything but the two known policies records nothing: a typo must not leak a raw value.
        if (policy !== 'raw' && policy !== 'hash') continue;
        out = pick(value, path.split('.'), out, policy === 'hash' ? hash : (v) => v);
      }
      if (out === undefined) return undefined;
      const json = JSON.stringify(out);
      // Over-long values are cut rather than dropped so that their presence stays visible.
      return json.length > options.maxChars ? `${json.slice(0, options.maxChars)}…` : json;
    },
  };
}

type Leaf = (v: unknown) => unknown;

/** Copy the value at `path` from `src` into `dst` (creating containers as needed); returns the new `dst`. */
function pick(src: unknown, path: readonly string[], dst: unknown, leaf: Leaf): unknown {
  if (src === undefined) return dst;
  const [head, ...rest] = path;
  if (head === undefined) return leaf(src);
  if (head === '*') {
    if (Array.isArray(src)) {
      const arr: unknown[] = Array.isArray(dst) ? dst : new Array(src.length).fill(undefined);
      src.forEach((el, i) => {
        arr[i] = pick(el, rest, arr[i], leaf);
      });
      return arr.map((x) => (x === undefined ? null : x));
    }
    if (isRecord(src)) {
      let obj = isRecord(dst) ? dst : undefined;
      for (const [k, v] of Object.entries(src)) obj = setKey(obj, k, pick(v, rest, obj?.[k], leaf));
      return obj ?? dst;
    }
    return dst;
  }
  if (!isRecord(src) || !Object.hasOwn(src, head)) return dst;
  const base = isRecord(dst) ? dst : undefined;
  return setKey(base, head, pick(src[head], rest, base?.[head], leaf)) ?? dst;
}

function setKey(obj: Record<string, unknown> | undefined, key: string, value: unknown) {
  if (value === undefined) return obj;
  const target = obj ?? {};
  target[key] = value;
  return target;
}

/** Whether any field of these policies is hashed. */
export function hashesAny(...policies: (FieldPolicies | undefined)[]): boolean {
  return policies.some((p) => p !== undefined && Object.values(p).includes('hash'));
}

/** Said once per instrumentation when a field is marked `hash` and no key is configured. */
export const UNKEYED_HASH_WARNING =
  'tooltrail: fields marked `hash` are recorded as plain SHA-256, which a dictionary reverses for short or guessable values (ids, e-mail addresses, PINs); set hashKey or TOOLTRAIL_HASH_KEY (16+ characters) for HMAC-SHA256';

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
