/**
 * Evidence receipts for fastify HTTP APIs: a read route attaches its receipt (`tooltrail-evidence-receipt` header);
 * a mutation route declared as requiring evidence gets a `preHandler` that answers 409 with the failed check's
 * code when the receipt (same header on the request) is missing or does not verify.
 * Tenant and session come from the request's credential, through callbacks the API provides.
 */
import type { IssueInput, ReceiptIssuer, ReceiptVerifier } from './receipt.ts';

/** The parts of fastify's request and reply used here (the package does not depend on fastify). */
export interface FastifyRequestLike {
  headers: Record<string, string | string[] | undefined>;
}
export interface FastifyReplyLike {
  header(name: string, value: string): unknown;
  code(status: number): { send(body: unknown): unknown };
}

export const RECEIPT_HEADER = 'tooltrail-evidence-receipt';

export interface FastifyIdentity<R extends FastifyRequestLike = FastifyRequestLike> {
  tenant: (request: R) => string;
  session: (request: R) => string;
}

/** Issues the receipt for a read's result and sets it on the reply; returns the token too (to put in the body). */
export function attachEvidenceReceipt<R extends FastifyRequestLike>(
  issuer: ReceiptIssuer,
  identity: FastifyIdentity<R>,
  request: R,
  reply: FastifyReplyLike,
  read: Omit<IssueInput, 'tenant' | 'session'>,
): string {
  const token = issuer.issue({ ...read, tenant: identity.tenant(request), session: identity.session(request) });
  reply.header(RECEIPT_HEADER, token);
  return token;
}

/** A `preHandler` for a mutation route: 409 `{ code, message }` unless the receipt verifies. */
export function requireEvidence<R extends FastifyRequestLike>(
  verifier: ReceiptVerifier,
  identity: FastifyIdentity<R>,
  options: { resource: string; targets: (request: R) => readonly string[] },
) {
  return async (request: R, reply: FastifyReplyLike): Promise<void> => {
    const header = request.headers[RECEIPT_HEADER];
    const verdict = verifier.verify({
      token: Array.isArray(header) ? header[0] : header,
      tenant: identity.tenant(request),
      session: identity.session(request),
      resource: options.resource,
      targets: options.targets(request),
    });
    if (!verdict.ok) {
      await reply.code(409).send({ code: verdict.reason, message: verdict.message });
    }
  };
}
