/**
 * `@tooltrail/instrumentation/evidence`: signed evidence receipts for tool servers. A read hands out a receipt of
 * what it returned; a mutation that requires evidence verifies it and refuses with the check that failed.
 */
export type { FastifyIdentity, FastifyReplyLike, FastifyRequestLike } from './fastify.ts';
export { attachEvidenceReceipt, RECEIPT_HEADER, requireEvidence } from './fastify.ts';
export type { HandlerExtra, ReceiptReadOptions, RequestIdentity, RequireReceiptOptions } from './mcp-server.ts';
export {
  RECEIPT_FIELD,
  requireEvidenceReceipt,
  sessionFromTransport,
  tenantFromCredential,
  withEvidenceReceipt,
} from './mcp-server.ts';
export type {
  IssueInput,
  KeyRing,
  ReceiptIssuer,
  ReceiptKey,
  ReceiptOptions,
  ReceiptPayload,
  ReceiptRefusal,
  ReceiptVerifier,
  Verdict,
  VerifyInput,
} from './receipt.ts';
export {
  createReceiptIssuer,
  createReceiptVerifier,
  DEFAULT_RECEIPT_TTL_SECONDS,
  idsDigest,
  RECEIPT_REFUSALS,
  ReceiptKeyError,
} from './receipt.ts';
