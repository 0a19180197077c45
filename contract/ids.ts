/**
 * What an id may look like before it reaches a query. Values are always bound as parameters; these patterns are
 * the second wall: a malformed id is refused (HTTP 400, CLI error) and never sent to ClickHouse at all.
 */
import { z } from 'zod';

/** W3C trace id: 32 lowercase hex characters (uppercase accepted and lowered). */
export const TRACE_ID_PATTERN = '^[0-9a-fA-F]{32}$';
/** Session ids (`gen_ai.conversation.id`) come from agent runtimes: a safe charset and a bounded length. */
export const SESSION_ID_PATTERN = '^[A-Za-z0-9][A-Za-z0-9._:@/+=-]{0,199}$';
/**
 * The one tenant rule. A tenant is named by a credential (a token's `=tenant`, the collector's no-auth tenant) and
 * stamped by the collector; readers take it from the credential too, so every side checks the same rule.
 */
export const TENANT_PATTERN = '^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$';
export const TENANT_REGEX = new RegExp(TENANT_PATTERN);
/** Whether `tenant` follows the one tenant rule (a name a credential could carry). */
export const isValidTenant = (tenant: string): boolean => TENANT_REGEX.test(tenant);
/** The rule in words, for error messages. */
export const TENANT_RULE = '1-64 letters, digits, dots, dashes or underscores';
/** Alert finding fingerprints: hex digests. */
export const FINGERPRINT_PATTERN = '^[0-9a-fA-F]{8,128}$';

export const TraceIdSchema = z
  .string()
  .regex(new RegExp(TRACE_ID_PATTERN), 'must be 32 hex characters')
  .transform((s) => s.toLowerCase());
export const SessionIdSchema = z
  .string()
  .regex(new RegExp(SESSION_ID_PATTERN), 'must be 1-200 characters of [A-Za-z0-9._:@/+=-], starting alphanumeric');
export const TenantSchema = z.string().regex(TENANT_REGEX, `must be ${TENANT_RULE}, starting alphanumeric`);
export const FingerprintSchema = z
  .string()
  .regex(new RegExp(FINGERPRINT_PATTERN), 'must be 8-128 hex characters')
  .transform((s) => s.toLowerCase());

/** Parses `value` with `schema`, throwing one line that names the option and the rule. */
export function parseId<T>(schema: z.ZodType<T, string>, value: string, name: string): T {
  const r = schema.safeParse(value);
  if (!r.success)
    throw new InvalidIdError(`${name} ${JSON.stringify(value)} ${r.error.issues[0]?.message ?? 'is invalid'}`);
  return r.data;
}

export class InvalidIdError extends Error {
  override name = 'InvalidIdError';
}
