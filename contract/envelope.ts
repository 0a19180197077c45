/**
 * The completeness contract as a wire envelope: what a tool returns beside its data.
 * One zod schema is the source of truth for the TypeScript types, the runtime validation and the exported
 * JSON Schema (docs/contract.schema.json) that runtimes in other languages validate against.
 * Cross-field rules are expressed structurally (a union on `status`), never as refinements, so that the JSON
 * Schema enforces exactly what the TypeScript validation enforces.
 */
import { z } from 'zod';
import { SEMCONV_VERSION } from './attributes.ts';
import type { ContinuationKind } from './codes.ts';
import { REASON_CODES, WARNING_CODES } from './codes.ts';

/** Why a result is not complete: a stable code for programs, a message for humans. */
export const ReasonSchema = z
  .object({
    code: z.enum(REASON_CODES),
    message: z.string().optional().describe('For humans; programs branch on `code` only.'),
    source: z.string().min(1).optional().describe('The shard, index, API or tenant the reason applies to.'),
    limit: z.number().int().nonnegative().optional().describe('The limit that was hit, when one was.'),
  })
  .meta({ id: 'Reason' });

/** Confidence, freshness or interpretation notes. Never make a result incomplete by themselves. */
export const WarningSchema = z
  .object({
    code: z.enum(WARNING_CODES),
    message: z.string(),
    source: z.string().min(1).describe('What the warning is about (index, API, field): gives it an owner.'),
  })
  .meta({ id: 'Warning' });

/** How the caller may recover the part that was not returned. */
export const ContinuationSchema = z
  .discriminatedUnion('kind', [
    z.object({ kind: z.literal('next_cursor'), cursor: z.string().min(1) }),
    z.object({
      kind: z.literal('retry_after'),
      after_seconds: z.number().nonnegative(),
      cursor: z.string().min(1).optional().describe('Where to resume once the wait is over.'),
    }),
    z.object({ kind: z.literal('narrow_query'), hint: z.string().optional() }),
    z.object({ kind: z.literal('retry_with_deadline'), minimum_seconds: z.number().positive().optional() }),
    z.object({ kind: z.literal('none') }),
  ])
  .meta({ id: 'Continuation' });

/** What `complete` covers: the resource, what the credential could see, and the snapshot read. */
export const ScopeSchema = z
  .object({
    resource: z.string().min(1),
    visibility: z.string().min(1).optional(),
    snapshot: z.string().min(1).optional(),
  })
  .meta({ id: 'Scope' });

/** Pages followed by an all-pages collector; short pages were not taken as the end. */
export const PaginationSchema = z
  .object({
    pages: z.number().int().nonnegative(),
    short_pages: z.number().int().nonnegative(),
    requested_page_size: z.number().int().positive().optional(),
  })
  .meta({ id: 'Pagination' });

const NONE = { kind: 'none' } as const;

const CompleteCompleteness = z.object({
  complete: z.literal(true),
  reasons: z.array(ReasonSchema).max(0).default([]),
  continuation: z.object({ kind: z.literal('none') }).default(NONE),
});

const IncompleteCompleteness = z.object({
  complete: z.literal(false),
  reasons: z.array(ReasonSchema).min(1).describe('At least one reason: an incomplete result always says why.'),
  continuation: ContinuationSchema.default(NONE),
});

const ErrorCompleteness = z.object({
  complete: z.literal(false),
  reasons: z.array(ReasonSchema).default([]),
  continuation: ContinuationSchema.default(NONE),
});

function toolResultSchema<I extends z.ZodType<unknown[] | undefined>>(items: I) {
  const common = {
    contract_version: z
      .string()
      .optional()
      .describe(`Version of these conventions; this schema is ${SEMCONV_VERSION}.`),
    items: items.describe('The collection returned (possibly empty).'),
    data: z.unknown().optional().describe('A single resource, when the tool does not return a collection.'),
    scope: ScopeSchema.optional(),
    warnings: z.array(WarningSchema).default([]),
    pagination: PaginationSchema.optional(),
  };
  return z.discriminatedUnion('status', [
    z.object({ status: z.literal('complete'), completeness: CompleteCompleteness, ...common }),
    z.object({ status: z.literal('partial'), completeness: IncompleteCompleteness, ...common }),
    z.object({
      status: z.literal('error'),
      completeness: ErrorCompleteness,
      error: z.object({ type: z.string().min(1), message: z.string() }),
      ...common,
    }),
  ]);
}

/**
 * A tool result with its completeness. Four states stay distinct: complete with items, complete and empty,
 * incomplete with items, incomplete and empty. `partial` is usable data with a limit; `error` is no usable data.
 */
export const ToolResultSchema = toolResultSchema(z.array(z.unknown()).optional()).meta({
  id: 'ToolResult',
  title: 'tooltrail tool result envelope',
  description: 'A tool result that states what it covered. See docs/semantic-conventions.md.',
});

/**
 * The same rules for validating at run time, except that `items` is checked to be an array without visiting each
 * item (items are opaque to the contract): a 1,000-item result then costs what a 10-item one does.
 */
export const ToolResultRuntimeSchema = toolResultSchema(
  z.custom<unknown[]>((v) => Array.isArray(v), 'items must be an array').optional(),
);

export type Reason = z.infer<typeof ReasonSchema>;
export type Warning = z.infer<typeof WarningSchema>;
export type Continuation = z.infer<typeof ContinuationSchema>;
export type Scope = z.infer<typeof ScopeSchema>;
export type Pagination = z.infer<typeof PaginationSchema>;
/** A validated result (defaults applied). `items` is typed by the caller; validation only checks it is an array. */
export type ToolResult<T = unknown> = WithItems<z.output<typeof ToolResultSchema>, T>;
type WithItems<R, T> = R extends unknown ? Omit<R, 'items'> & { items?: T[] } : never;
/** What a tool may send: defaults (`warnings`, `continuation`, empty `reasons`) may be left out. */
export type ToolResultInput = z.input<typeof ToolResultSchema>;

// The continuation kinds of the schema and of codes.ts must be the same set.
type SameSet<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const continuationKindsMatch: SameSet<Continuation['kind'], ContinuationKind> = true;
void continuationKindsMatch;
