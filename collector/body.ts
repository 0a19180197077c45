/**
 * Reads an OTLP request body: bounded as received (`maxWireBytes`, 413 before reading when Content-Length says
 * so), decompressed per Content-Encoding (gzip or deflate) with the output bounded by `maxBodyBytes` (413: a gzip
 * bomb stops at the limit, it is never inflated whole). Every byte is reserved in the request's admission budget
 * before it is kept: the declared length before reading, then each received or inflated chunk beyond it, so
 * unfinished or lying bodies cannot hold memory the gauges do not show. Decompression runs on libuv's thread pool.
 */
import type { Readable } from 'node:stream';
import { createGunzip, createInflate } from 'node:zlib';
import type { AdmissionRefusal } from './admission.ts';
import { CollectorHttpError, refuse } from './errors.ts';

export const SUPPORTED_ENCODINGS = ['identity', 'gzip', 'x-gzip', 'deflate'] as const;

export interface BodyLimits {
  maxWireBytes: number;
  maxBodyBytes: number;
  throttleRetryAfterSeconds: number;
}

/** The request's share of the admission budget (an AdmissionTicket). */
export interface BodyBudget {
  reserve(bytes: number): AdmissionRefusal | undefined;
  release(bytes: number): void;
  readonly reservedBytes: number;
}

function refusal(reason: AdmissionRefusal, retryAfterSeconds: number): CollectorHttpError {
  const whose = reason.startsWith('tenant_') ? "this credential's share of" : 'the collector';
  return refuse.throttled(reason, `${whose} request memory is in use; retry later`, retryAfterSeconds);
}

/** How long a body past its limit is drained before its 413 is sent (nginx's lingering close, bounded). */
const LINGER_MS = 2_000;

/** Keeps the stream's chunks up to `maxBytes`, reserving each byte beyond `reserved` in the budget first. */
function collect(
  stream: Readable,
  maxBytes: number,
  tooLarge: () => CollectorHttpError,
  budget: BodyBudget,
  limits: BodyLimits,
): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const stop = (err: Error) => {
      stream.off('data', onData);
      stream.off('end', onEnd);
      stream.resume(); // drain without keeping; the refusal is sent with Connection: close
      reject(err);
    };
    // A 413 sent while the client is still sending is closed on unread bytes: the kernel answers them with a
    // reset that can discard the 413 before the client reads it. Drain to the body's end (at most LINGER_MS) first.
    const stopAtEnd = (err: Error) => {
      stream.off('data', onData);
      stream.off('end', onEnd);
      stream.resume();
      const done = () => {
        clearTimeout(timer);
        reject(err);
      };
      const timer = setTimeout(done, LINGER_MS);
      stream.once('end', done);
      stream.once('close', done);
      stream.once('error', done);
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > maxBytes) return stopAtEnd(tooLarge());
      const beyond = size - budget.reservedBytes;
      const refused = beyond > 0 ? budget.reserve(beyond) : undefined;
      if (refused) return stop(refusal(refused, limits.throttleRetryAfterSeconds));
      chunks.push(chunk);
    };
    const onEnd = () => resolve(chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks, size));
    stream.on('data', onData);
    stream.once('end', onEnd);
    stream.once('error', (err) => reject(err));
  });
}

async function decompress(wire: Buffer, encoding: string, budget: BodyBudget, limits: BodyLimits): Promise<Buffer> {
  const inflater = encoding === 'deflate' ? createInflate() : createGunzip();
  const tooLarge = () => refuse.tooLarge(`the decompressed request body exceeds ${limits.maxBodyBytes} bytes`);
  const done = collect(inflater, limits.maxBodyBytes, tooLarge, budget, limits);
  inflater.end(wire);
  try {
    return await done;
  } catch (err) {
    inflater.destroy();
    if (err instanceof CollectorHttpError) throw err;
    throw refuse.badCompression(`the body is not valid ${encoding} data: ${(err as Error).message}`);
  }
}

export async function readBody(
  headers: Record<string, string | string[] | undefined>,
  stream: Readable,
  limits: BodyLimits,
  budget: BodyBudget,
): Promise<Buffer> {
  const encoding = String(headers['content-encoding'] ?? 'identity')
    .trim()
    .toLowerCase();
  if (!(SUPPORTED_ENCODINGS as readonly string[]).includes(encoding)) {
    throw refuse.unsupportedEncoding(`Content-Encoding ${encoding} is not supported (use gzip, deflate or none)`);
  }
  const declared = Number(headers['content-length']);
  if (declared > limits.maxWireBytes) {
    stream.resume();
    throw refuse.tooLarge(`the request body (${declared} bytes) exceeds ${limits.maxWireBytes} bytes`);
  }
  if (declared > 0) {
    // Admitted against the declared length before a byte is read: a client cannot park unread bodies for free.
    const refused = budget.reserve(declared);
    if (refused) throw refusal(refused, limits.throttleRetryAfterSeconds);
  }
  const wireTooLarge = () => refuse.tooLarge(`the request body exceeds ${limits.maxWireBytes} bytes`);
  const wire = await collect(stream, limits.maxWireBytes, wireTooLarge, budget, limits);
  if (encoding === 'identity') {
    if (wire.length > limits.maxBodyBytes)
      throw refuse.tooLarge(`the request body exceeds ${limits.maxBodyBytes} bytes`);
    return wire;
  }
  // The inflated body is reserved beyond what the wire holds; the budget then keeps the larger of the two.
  return decompress(wire, encoding, budget, limits);
}
