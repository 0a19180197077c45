/**
 * Evidence receipts: a read tool's complete result carries a signed statement of what it returned (tenant, session,
 * resource, snapshot, the returned ids and their digest, completeness, expiry); a mutation tool that requires
 * evidence verifies it and refuses with the check that failed. Ed25519 or HMAC-SHA256 keys in a ring: the current
 * key signs, every key still in the ring verifies (rotation without refusing receipts already handed out).
 * Token: `tt1.<base64url(payload JSON)>.<base64url(signature)>`.
 */
import { createHash, createHmac, type KeyObject, sign, timingSafeEqual, verify } from 'node:crypto';

export const RECEIPT_PREFIX = 'tt1';

/** Why a receipt was refused: stable codes, one per check, in the order they are made. */
export const RECEIPT_REFUSALS = [
  'RECEIPT_MISSING',
  'RECEIPT_MALFORMED',
  'RECEIPT_UNKNOWN_KEY',
  'RECEIPT_FORGED',
  'RECEIPT_EXPIRED',
  'RECEIPT_INCOMPLETE',
  'RECEIPT_OTHER_TENANT',
  'RECEIPT_OTHER_SESSION',
  'RECEIPT_OTHER_RESOURCE',
  'TARGET_OUTSIDE_RECEIPT',
] as const;
export type ReceiptRefusal = (typeof RECEIPT_REFUSALS)[number];

export type ReceiptKey =
  | { alg: 'Ed25519'; privateKey?: KeyObject; publicKey: KeyObject }
  | { alg: 'HS256'; secret: Buffer };

export interface KeyRing {
  /** Key id that signs new receipts. */
  current: string;
  /** Every key that may verify (the current one and those being retired). */
  keys: Readonly<Record<string, ReceiptKey>>;
}

/** What a receipt states; `ids` are the returned items' ids, bound by `ids_digest`. */
export interface ReceiptPayload {
  kid: string;
  tenant: string;
  session: string;
  resource: string;
  snapshot?: string;
  complete: boolean;
  ids: string[];
  ids_digest: string;
  /** Issued and expires at, seconds since the epoch. */
  iat: number;
  exp: number;
}

export interface IssueInput {
  tenant: string;
  session: string;
  resource: string;
  snapshot?: string;
  complete: boolean;
  ids: readonly string[];
}

export interface ReceiptOptions {
  ring: KeyRing;
  /** Seconds a receipt stays valid (default 300). */
  ttlSeconds?: number;
  /** Milliseconds since the epoch; injectable for tests. */
  now?: () => number;
}

export interface VerifyInput {
  token: string | undefined;
  tenant: string;
  session: string;
  resource: string;
  /** What the mutation touches: each must be among the receipt's ids. */
  targets: readonly string[];
}

export type Verdict =
  | { ok: true; payload: ReceiptPayload }
  | { ok: false; reason: ReceiptRefusal; message: string; payload?: ReceiptPayload };

export const DEFAULT_RECEIPT_TTL_SECONDS = 300;

export class ReceiptKeyError extends Error {
  override readonly name = 'ReceiptKeyError';
}

export function idsDigest(ids: readonly string[]): string {
  const h = createHash('sha256');
  for (const id of [...ids].sort()) h.update(`${id.length}:${id}`);
  return h.digest('base64url');
}

export interface ReceiptIssuer {
  /** A receipt for a read result; `complete: false` is stated, and a mutation will refuse it. */
  issue(input: IssueInput): string;
}

export interface ReceiptVerifier {
  verify(input: VerifyInput): Verdict;
}

export function createReceiptIssuer(options: ReceiptOptions): ReceiptIssuer {
  const key = options.ring.keys[options.ring.current];
  if (!key) throw new ReceiptKeyError(`evidence.ring.current: no key ${options.ring.current} in the ring`);
  if (key.alg === 'Ed25519' && !key.privateKey) {
    throw new ReceiptKeyError(`evidence.ring.keys.${options.ring.current}: the signing key needs its privateKey`);
  }
  const ttl = options.ttlSeconds ?? DEFAULT_RECEIPT_TTL_SECONDS;
  const now = options.now ?? Date.now;
  return {
    issue(input) {
      const iat = Math.floor(now() / 1000);
      const payload: ReceiptPayload = {
        kid: options.ring.current,
        tenant: input.tenant,
        session: input.session,
        resource: input.resource,
        ...(input.snapshot === undefined ? {} : { snapshot: input.snapshot }),
        complete: input.complete,
        ids: [...input.ids],
        ids_digest: idsDigest(input.ids),
        iat,
        exp: iat + ttl,
      };
      const body = Buffer.from(JSON.stringify(payload)).toString('base64url');
      const signed = `${RECEIPT_PREFIX}.${body}`;
      return `${signed}.${signWith(key, signed).toString('base64url')}`;
    },
  };
}

export function createReceiptVerifier(options: ReceiptOptions): ReceiptVerifier {
  const now = options.now ?? Date.now;
  return {
    verify(input) {
      if (!input.token)
        return refuse('RECEIPT_MISSING', 'no evidence receipt: read the resource first and pass its receipt');
      const parts = input.token.split('.');
      if (parts.length !== 3 || parts[0] !== RECEIPT_PREFIX)
        return refuse('RECEIPT_MALFORMED', 'not a tooltrail evidence receipt');
      let payload: ReceiptPayload;
      try {
        payload = JSON.parse(Buffer.from(parts[1] as string, 'base64url').toString('utf8')) as ReceiptPayload;
      } catch {
        return refuse('RECEIPT_MALFORMED', 'the receipt payload is not JSON');
      }
      if (typeof payload?.kid !== 'string' || !Array.isArray(payload.ids) || typeof payload.exp !== 'number') {
        return refuse('RECEIPT_MALFORMED', 'the receipt payload lacks kid, ids or exp');
      }
      const key = options.ring.keys[payload.kid];
      if (!key) return refuse('RECEIPT_UNKNOWN_KEY', `key ${payload.kid} is not in the ring (retired, or never ours)`);
      const signed = `${parts[0]}.${parts[1]}`;
      if (
        !verifyWith(key, signed, Buffer.from(parts[2] as string, 'base64url')) ||
        payload.ids_digest !== idsDigest(payload.ids)
      ) {
        return refuse('RECEIPT_FORGED', 'the receipt signature does not verify: it was altered or not issued by us');
      }
      const at = Math.floor(now() / 1000);
      if (at >= payload.exp)
        return refuse('RECEIPT_EXPIRED', `the receipt expired ${at - payload.exp} s ago: read again`, payload);
      if (payload.complete !== true)
        return refuse('RECEIPT_INCOMPLETE', 'the read behind this receipt was not complete', payload);
      if (payload.tenant !== input.tenant)
        return refuse('RECEIPT_OTHER_TENANT', 'the receipt was issued to another tenant', payload);
      if (payload.session !== input.session)
        return refuse('RECEIPT_OTHER_SESSION', 'the receipt belongs to another session', payload);
      if (payload.resource !== input.resource) {
        return refuse(
          'RECEIPT_OTHER_RESOURCE',
          `the receipt covers ${payload.resource}, not ${input.resource}`,
          payload,
        );
      }
      const seen = new Set(payload.ids);
      const outside = input.targets.filter((t) => !seen.has(t));
      if (outside.length > 0) {
        return refuse(
          'TARGET_OUTSIDE_RECEIPT',
          `targets the read did not return: ${outside.slice(0, 10).join(', ')}`,
          payload,
        );
      }
      return { ok: true, payload };
    },
  };
}

function refuse(reason: ReceiptRefusal, message: string, payload?: ReceiptPayload): Verdict {
  return { ok: false, reason, message, ...(payload ? { payload } : {}) };
}

function signWith(key: ReceiptKey, data: string): Buffer {
  if (key.alg === 'HS256') return createHmac('sha256', key.secret).update(data).digest();
  return sign(null, Buffer.from(data), key.privateKey as KeyObject);
}

function verifyWith(key: ReceiptKey, data: string, signature: Buffer): boolean {
  if (key.alg === 'HS256') {
    const expected = createHmac('sha256', key.secret).update(data).digest();
    return expected.length === signature.length && timingSafeEqual(expected, signature);
  }
  try {
    return verify(null, Buffer.from(data), key.publicKey, signature);
  } catch {
    return false;
  }
}
