/**
 * The tool policy file: per tool, what its annotations or its telemetry do not say (or say wrongly): its effect, the
 * resource it covers, how to find the returned items and their ids, and for a mutation its basis and where its
 * targets are in the arguments. Read by the MCP proxy and by the ingest (for tool spans of other emitters); validated
 * once at start, every problem reported with its exact key. Loading the file: platform/tool-policy-file.ts.
 */
import { z } from 'zod';
import { EFFECTS, type Effect, MUTATION_BASES } from './codes.ts';

/** A dotted path into arguments or a result: `entityNames`, `filter.ids`, `items.*.id` (`*` walks an array). */
const PathSchema = z
  .string()
  .regex(/^[A-Za-z0-9_$-]+(\.([A-Za-z0-9_$-]+|\*))*$/, 'a dotted path like `a.b` or `a.*.id`');

const ToolPolicySchema = z
  .object({
    effect: z.enum(EFFECTS).optional().describe('Overrides readOnlyHint.'),
    destructive: z.boolean().optional().describe('Overrides destructiveHint: only destructive mutations are guarded.'),
    resource: z.string().min(1).optional().describe('What a read covers, what a mutation acts in.'),
    items: PathSchema.optional().describe('Where the returned collection is in structuredContent.'),
    itemId: PathSchema.optional().describe('The field of an item that identifies it (default `id`).'),
    complete: z
      .literal('declared')
      .optional()
      .describe('The operator states this tool returns every match: a result with no limit signal is complete.'),
    textLimit: z.number().int().positive().optional().describe('A text result this long (chars) was cut.'),
    basis: z.enum(MUTATION_BASES).optional(),
    targets: z
      .union([z.string().regex(/^(\/[^/]*)*$/, 'a JSON pointer like `/ids`'), PathSchema])
      .optional()
      .describe(
        'Where the mutation targets are in the arguments: a JSON pointer (`/ids`) or a dotted path (`items.*.id`).',
      ),
    evidenceMaxAgeMs: z.number().int().positive().optional().describe('Reads older than this are stale evidence.'),
    cursor: z
      .union([z.string().regex(/^(\/[^/]*)*$/, 'a JSON pointer like `/cursor`'), PathSchema])
      .optional()
      .describe(
        'Where a read carries its cursor in the arguments (`cursor`, `page.token`, `/page` for a tool paged by number), so that its pages join one traversal. Default: the usual names (`cursor`, `page_token`, `after`...).',
      ),
  })
  .strict();

export const PolicyFileSchema = z
  .object({
    evidenceWindow: z.number().int().positive().max(10_000).optional(),
    tools: z.record(z.string().min(1), ToolPolicySchema).default({}),
  })
  .strict();

export type ToolPolicy = z.infer<typeof ToolPolicySchema>;
export type PolicyFile = z.infer<typeof PolicyFileSchema>;

/** The policy of the tool named `name`, if the file names it (a tool called `constructor` is not Object's). */
export function toolPolicyOf(file: PolicyFile | undefined, name: string | undefined): ToolPolicy | undefined {
  return file !== undefined && name !== undefined && Object.hasOwn(file.tools, name) ? file.tools[name] : undefined;
}

export const DEFAULT_EVIDENCE_WINDOW = 50;

export class PolicyError extends Error {
  override readonly name = 'PolicyError';
  readonly problems: string[];
  constructor(problems: string[]) {
    super(problems.join('; '));
    this.problems = problems;
  }
}

/** Validates a parsed policy; every problem names its key (`policy.tools.delete.basis: ...`). */
export function parsePolicy(value: unknown, origin = 'policy'): PolicyFile {
  const parsed = PolicyFileSchema.safeParse(value ?? {});
  if (parsed.success) return parsed.data;
  throw new PolicyError(
    parsed.error.issues.map((issue) => {
      const key = [origin, ...issue.path.map(String)].join('.');
      return `${key}: ${issue.message}`;
    }),
  );
}

/** The annotations MCP defines for a tool (all hints; the spec's defaults apply when absent). */
export interface ToolAnnotations {
  readOnlyHint?: boolean;
  destructiveHint?: boolean;
  idempotentHint?: boolean;
}

export interface ResolvedEffect {
  effect: Effect;
  /** Guarded: a mutation that may destroy or overwrite. */
  destructive: boolean;
  /** Where the effect came from, for the README's promise that the policy always wins. */
  source: 'policy' | 'annotations' | 'default';
}

/**
 * Policy first, then annotations. MCP's defaults: not read-only, and destructive unless `destructiveHint: false`;
 * an unannotated tool is a destructive mutation.
 */
export function resolveEffect(
  policy: ToolPolicy | undefined,
  annotations: ToolAnnotations | undefined,
): ResolvedEffect {
  const fromHints = annotations !== undefined;
  const readOnly = annotations?.readOnlyHint === true;
  const effect: Effect = policy?.effect ?? (readOnly ? 'read' : 'mutation');
  const destructive = effect === 'mutation' && (policy?.destructive ?? annotations?.destructiveHint !== false);
  const source =
    policy?.effect !== undefined || policy?.destructive !== undefined
      ? 'policy'
      : fromHints
        ? 'annotations'
        : 'default';
  return { effect, destructive, source };
}

/** Values at a dotted path; `*` fans out over arrays. Scalars only (ids), as strings. */
export function valuesAt(value: unknown, path: string): string[] {
  let current: unknown[] = [value];
  for (const part of path.split('.')) {
    const next: unknown[] = [];
    for (const v of current) {
      if (part === '*') {
        if (Array.isArray(v)) next.push(...v);
      } else if (v !== null && typeof v === 'object') {
        next.push((v as Record<string, unknown>)[part]);
      }
    }
    current = next;
  }
  const out: string[] = [];
  for (const v of current) {
    if (Array.isArray(v)) {
      for (const e of v) if (typeof e === 'string' || typeof e === 'number') out.push(String(e));
    } else if (typeof v === 'string' || typeof v === 'number') out.push(String(v));
  }
  return out;
}

/** The value at a dotted path without fan-out (where a collection lives). */
export function valueAt(value: unknown, path: string): unknown {
  let v = value;
  for (const part of path.split('.')) {
    if (v === null || typeof v !== 'object') return undefined;
    v = (v as Record<string, unknown>)[part];
  }
  return v;
}
