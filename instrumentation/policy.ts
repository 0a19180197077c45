/**
 * Tool policies: what a tool reads or changes, declared once by the runtime, so that a mutation the model calls with
 * arguments only is judged on the session's own reads of that resource, not on a plan somebody has to write.
 */
import { z } from 'zod';
import type { MutationBasis } from '../contract/index.ts';
import { EFFECTS, MUTATION_BASES } from '../contract/index.ts';
import type { CursorSelector } from './cursor.ts';
import { atPointer } from './json-pointer.ts';

/**
 * Where a mutation's targets are in its arguments: an RFC 6901 JSON pointer (`/ids`, `/account/id`) to a string, a
 * number or an array of them, or a function of the arguments returning the same.
 */
export type TargetSelector<A = unknown> =
  | string
  | ((args: A) => string | number | readonly (string | number)[] | undefined);

/** Which reads count as evidence: those at most `maxAgeMs` old when the mutation is judged. */
export interface EvidenceWindow {
  maxAgeMs: number;
}

/** A read tool's policy: the resource its results describe (when a result declares no scope of its own). */
export interface ReadPolicy<A = unknown> {
  resource: string;
  /**
   * Where the cursor is in its arguments (`/cursor`, `/page_token`, `/page` for a tool paged by number), so that a
   * page read with the cursor an earlier page returned joins that page's traversal. Default: the adapter's
   * `pageParams` when the tool has one, else the usual names (`cursor`, `page_token`, `after`, `continue`...).
   */
  cursor?: CursorSelector<A>;
}

/** A mutation tool's policy: judged on the session's reads of `resource` within the window. */
export interface MutationPolicy<A = unknown> {
  /** The resource the mutation acts in (`service_accounts`): reads of it are its evidence. */
  resource: string;
  /** `presence`: acts on items a read returned. `absence`: acts on what a complete read did not return. */
  basis: MutationBasis;
  /** Where its targets are in the arguments. Absent: the mutation names no targets (e.g. "mark compliant"). */
  targets?: TargetSelector<A>;
  /** Default: the configured `evidenceMaxAgeMs`. */
  evidenceWindow?: EvidenceWindow;
}

/** A policy as plain data (a policy file): targets by JSON pointer only. */
const JsonPointerSchema = z
  .string()
  .refine((p) => p === '' || p.startsWith('/'), 'a JSON pointer starts with "/" (or is "" for the whole arguments)');

export const ToolPolicySchema = z.discriminatedUnion('effect', [
  z
    .object({ effect: z.literal(EFFECTS[0]), resource: z.string().min(1), cursor: JsonPointerSchema.optional() })
    .strict(),
  z
    .object({
      effect: z.literal(EFFECTS[1]),
      resource: z.string().min(1),
      basis: z.enum(MUTATION_BASES),
      targets: JsonPointerSchema.optional(),
      evidenceWindow: z.object({ maxAgeMs: z.number().int().positive() }).strict().optional(),
    })
    .strict(),
]);

export type ToolPolicyInput = z.input<typeof ToolPolicySchema>;
export type ToolPolicy = z.output<typeof ToolPolicySchema>;

/**
 * Validates a set of policies read from a file (tool name -> policy), reporting every problem with its exact key
 * (`tools.delete_accounts.basis: ...`).
 */
export function parseToolPolicies(input: unknown, key = 'tools'): Record<string, ToolPolicy> {
  const parsed = z.record(z.string().min(1), ToolPolicySchema).safeParse(input);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((i) => `${[key, ...i.path].join('.')}: ${i.message}`);
    throw new Error(`invalid tool policies: ${problems.join('; ')}`);
  }
  return parsed.data;
}

export type TargetsRead = { ok: true; targets: string[] } | { ok: false; problem: string };

/** The targets a call names, or why they cannot be read (then the guard refuses: `TARGETS_UNREADABLE`). */
export function readTargets<A>(selector: TargetSelector<A> | undefined, args: A): TargetsRead {
  if (selector === undefined) return { ok: true, targets: [] };
  let value: unknown;
  if (typeof selector === 'function') {
    try {
      value = selector(args);
    } catch (err) {
      return { ok: false, problem: `the targets function threw: ${String(err)}` };
    }
  } else {
    const found = atPointer(args, selector);
    if (!found.ok) return found;
    value = found.value;
  }
  const where = typeof selector === 'function' ? 'the targets function' : `arguments at ${selector}`;
  const list = Array.isArray(value) ? value : [value];
  const targets: string[] = [];
  for (const v of list) {
    if (typeof v === 'string' || (typeof v === 'number' && Number.isFinite(v))) targets.push(String(v));
    else return { ok: false, problem: `${where} gave ${describe(v)}, not a string, a number or an array of them` };
  }
  return { ok: true, targets };
}

function describe(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'a nested array';
  return typeof v === 'object' ? 'an object' : typeof v;
}
