/**
 * Evidence receipts for tool servers written with the official SDK (`McpServer.registerTool` handlers): a read
 * handler's result gains its receipt (in `structuredContent.evidence_receipt` and as a text line the model can
 * copy); a mutation handler that requires evidence runs only when the receipt in its arguments verifies, and
 * otherwise answers `isError` with the failed check as `structuredContent.refused`.
 * Tenant and session come from the request (the credential's `authInfo`, the transport's session), never the arguments.
 */
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { ReceiptIssuer, ReceiptRefusal, ReceiptVerifier } from './receipt.ts';

export const RECEIPT_FIELD = 'evidence_receipt';

/** The part of the SDK's `RequestHandlerExtra` used here. */
export interface HandlerExtra {
  sessionId?: string | undefined;
  authInfo?: { clientId: string; extra?: Record<string, unknown> } | undefined;
}

export interface RequestIdentity {
  /** Default: `authInfo.extra.tenant`, else `authInfo.clientId`, else `local` (no credential: one local tenant). */
  tenant?: (extra: HandlerExtra) => string;
  /** Default: the transport's session id, else `stdio` (one client per process). */
  session?: (extra: HandlerExtra) => string;
}

export interface ReceiptReadOptions<R> extends RequestIdentity {
  resource: string;
  ids: (result: R) => readonly string[];
  complete: (result: R) => boolean;
  snapshot?: (result: R) => string | undefined;
}

export interface RequireReceiptOptions<A> extends RequestIdentity {
  resource: string;
  targets: (args: A) => readonly string[];
  /** Where the receipt is in the arguments (default `args.evidence_receipt`). */
  receipt?: (args: A) => string | undefined;
}

type Handler<A, E> = (args: A, extra: E) => CallToolResult | Promise<CallToolResult>;

export const tenantFromCredential = (extra: HandlerExtra): string => {
  const t = extra.authInfo?.extra?.tenant;
  return typeof t === 'string' && t.length > 0 ? t : (extra.authInfo?.clientId ?? 'local');
};
export const sessionFromTransport = (extra: HandlerExtra): string => extra.sessionId ?? 'stdio';

/** Wraps a read handler: every non-error result carries a receipt stating its completeness. */
export function withEvidenceReceipt<A, E extends HandlerExtra>(
  issuer: ReceiptIssuer,
  options: ReceiptReadOptions<CallToolResult>,
  handler: Handler<A, E>,
): Handler<A, E> {
  return async (args, extra) => {
    const result = await handler(args, extra);
    if (result.isError) return result;
    const snapshot = options.snapshot?.(result);
    const token = issuer.issue({
      tenant: (options.tenant ?? tenantFromCredential)(extra),
      session: (options.session ?? sessionFromTransport)(extra),
      resource: options.resource,
      complete: options.complete(result),
      ids: options.ids(result),
      ...(snapshot === undefined ? {} : { snapshot }),
    });
    return {
      ...result,
      structuredContent: { ...(result.structuredContent ?? {}), [RECEIPT_FIELD]: token },
      content: [...result.content, { type: 'text', text: `${RECEIPT_FIELD}: ${token}` }],
    };
  };
}

/** Wraps a mutation handler: it runs only on a receipt that verifies for this tenant, session, resource and targets. */
export function requireEvidenceReceipt<A, E extends HandlerExtra>(
  verifier: ReceiptVerifier,
  options: RequireReceiptOptions<A>,
  handler: Handler<A, E>,
): Handler<A, E> {
  return async (args, extra) => {
    const verdict = verifier.verify({
      token: (options.receipt ?? defaultReceipt)(args),
      tenant: (options.tenant ?? tenantFromCredential)(extra),
      session: (options.session ?? sessionFromTransport)(extra),
      resource: options.resource,
      targets: options.targets(args),
    });
    if (verdict.ok) return handler(args, extra);
    return refusal(verdict.reason, verdict.message);
  };
}

export function refusal(reason: ReceiptRefusal, message: string): CallToolResult {
  return {
    isError: true,
    content: [{ type: 'text', text: `refused (${reason}): ${message}. Nothing was changed.` }],
    structuredContent: { refused: reason, message },
  };
}

function defaultReceipt(args: unknown): string | undefined {
  const v = (args as Record<string, unknown> | null)?.[RECEIPT_FIELD];
  return typeof v === 'string' ? v : undefined;
}
