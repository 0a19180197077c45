/**
 * Reads an OTLP request body: bounded as received (`maxWireBytes`, 413 before reading when Content-Length says
 * so), decompressed per Content-Encoding (gzip or deflate) with the output bounded by `maxBodyBytes` (413: a gzip
 * bomb stops at the limit, it is never inflated whole). Decompression runs on libuv's thread pool.
 */
import type { Readable } from 'node:stream';
import { promisify } from 'node:util';
import { gunzip, inflate } from 'node:zlib';
import { refuse } from './errors.ts';

const gunzipAsync = promisify(gunzip);
const inflateAsync = promisify(inflate);

export const SUPPORTED_ENCODINGS = ['identity', 'gzip', 'x-gzip', 'deflate'] as const;

export interface BodyLimits {
  maxWireBytes: number;
  maxBodyBytes: number;
}

function collect(stream: Readable, maxBytes: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > maxBytes) {
        stream.off('data', onData);
        stream.off('end', onEnd);
        stream.resume(); // drain without keeping; the 413 is sent with Connection: close
        reject(refuse.tooLarge(`the request body exceeds ${maxBytes} bytes`));
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = () => resolve(chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks, size));
    stream.on('data', onData);
    stream.once('end', onEnd);
    stream.once('error', reject);
  });
}

async function decompress(wire: Buffer, encoding: string, maxBodyBytes: number): Promise<Buffer> {
  try {
    const run = encoding === 'deflate' ? inflateAsync : gunzipAsync;
    return await run(wire, { maxOutputLength: maxBodyBytes });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE') {
      throw refuse.tooLarge(`the decompressed request body exceeds ${maxBodyBytes} bytes`);
    }
    throw refuse.badCompression(`the body is not valid ${encoding} data: ${(err as Error).message}`);
  }
}

export async function readBody(
  headers: Record<string, string | string[] | undefined>,
  stream: Readable,
  limits: BodyLimits,
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
  const wire = await collect(stream, limits.maxWireBytes);
  if (encoding === 'identity') {
    if (wire.length > limits.maxBodyBytes)
      throw refuse.tooLarge(`the request body exceeds ${limits.maxBodyBytes} bytes`);
    return wire;
  }
  return decompress(wire, encoding, limits.maxBodyBytes);
}
