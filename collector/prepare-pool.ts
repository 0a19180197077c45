/**
 * Decode threads: `prepareMessages` (decode, validate, stamp, split per trace) on worker threads, so the main
 * thread only serves HTTP and drives Kafka. Measured here before the protobuf fast path (collector/fast/): a
 * 512-span request cost ~10 us/span to prepare and ~9 us/span in the Kafka client of then (kafkajs); the fast path prepares a valid request
 * in ~3 us/span, so threads now pay off only with cores to spare. The body is transferred to the thread and the messages
 * come back in one transferred buffer: nothing but a few numbers and keys is copied.
 */
import { Worker } from 'node:worker_threads';
import { FROM_SOURCES } from '../platform/package-root.ts';
import { CollectorHttpError, type RefusalReason } from './errors.ts';
import type { BodyFormat, PreparedMessages, PreparedSummary } from './prepare.ts';

// From the sources a worker needs tsx registered first (prepare-worker.mjs does it); the build runs as it is.
const ENTRY = new URL(FROM_SOURCES ? './prepare-worker.mjs' : './prepare-worker.js', import.meta.url);

/** main -> thread */
export interface PrepareRequest {
  id: number;
  body: Uint8Array;
  format: BodyFormat;
  tenant: string;
}

/** thread -> main */
export type PrepareReply =
  | {
      id: number;
      ok: true;
      summary: PreparedSummary;
      keys: string[];
      spanCounts: Int32Array;
      /** offsets[i]..offsets[i+1] is message i in `data`. */
      offsets: Int32Array;
      data: Uint8Array;
    }
  | {
      id: number;
      ok: false;
      refusal?: { statusCode: number; rpcCode: number; reason: RefusalReason; message: string };
      error?: string;
    };

interface Thread {
  worker: Worker;
  pending: Map<number, { resolve(p: PreparedMessages): void; reject(e: Error): void }>;
}

/** A Buffer that owns its whole ArrayBuffer can be moved to the thread; a view into a shared one must be copied. */
function movable(body: Buffer): { bytes: Uint8Array; transfer: ArrayBuffer[] } {
  const ab = body.buffer;
  if (
    ab instanceof ArrayBuffer &&
    body.byteOffset === 0 &&
    body.byteLength === ab.byteLength &&
    ab.byteLength >= 4096
  ) {
    return { bytes: body, transfer: [ab] };
  }
  const copy = new Uint8Array(body.byteLength);
  copy.set(body);
  return { bytes: copy, transfer: [copy.buffer] };
}

export class PreparePool {
  private readonly threads: Thread[] = [];
  private nextId = 1;
  private closed = false;

  constructor(size: number) {
    if (!(size >= 1)) throw new Error('PreparePool: size must be at least 1');
    for (let i = 0; i < size; i++) this.threads.push(this.spawn());
  }

  private spawn(): Thread {
    const thread: Thread = { worker: new Worker(ENTRY), pending: new Map() };
    const fail = (err: Error) => {
      for (const p of thread.pending.values()) p.reject(err);
      thread.pending.clear();
      const at = this.threads.indexOf(thread);
      // A thread that died is replaced; its requests were answered 500 (a bug, not a client error).
      if (at >= 0 && !this.closed) this.threads[at] = this.spawn();
    };
    thread.worker.on('message', (reply: PrepareReply) => {
      const p = thread.pending.get(reply.id);
      if (!p) return;
      thread.pending.delete(reply.id);
      if (thread.pending.size === 0) thread.worker.unref();
      if (reply.ok) {
        const { data, offsets, keys, spanCounts } = reply;
        const messages = keys.map((key, i) => {
          const start = offsets[i] as number;
          const end = offsets[i + 1] as number;
          return {
            key,
            value: Buffer.from(data.buffer, data.byteOffset + start, end - start),
            spanCount: spanCounts[i] as number,
          };
        });
        p.resolve({ ...reply.summary, messages });
      } else if (reply.refusal) {
        const r = reply.refusal;
        p.reject(new CollectorHttpError(r.statusCode, r.rpcCode, r.reason, r.message));
      } else {
        p.reject(new Error(`decode thread: ${reply.error ?? 'unknown error'}`));
      }
    });
    thread.worker.on('error', (err) => fail(err));
    thread.worker.on('exit', (code) => fail(new Error(`decode thread exited (code ${code})`)));
    // Idle threads must not keep the process alive; a pending request holds it like a socket would.
    thread.worker.unref();
    return thread;
  }

  /** Prepares on the least busy thread. The body must not be used by the caller afterwards (it may be moved). */
  run(body: Buffer, format: BodyFormat, tenant: string): Promise<PreparedMessages> {
    if (this.closed) return Promise.reject(new Error('decode threads are closed'));
    let thread = this.threads[0] as Thread;
    for (const t of this.threads) if (t.pending.size < thread.pending.size) thread = t;
    const id = this.nextId++;
    const { bytes, transfer } = movable(body);
    return new Promise((resolve, reject) => {
      thread.pending.set(id, { resolve, reject });
      thread.worker.ref();
      thread.worker.postMessage({ id, body: bytes, format, tenant } satisfies PrepareRequest, transfer);
    });
  }

  async close(): Promise<void> {
    this.closed = true;
    await Promise.all(this.threads.map((t) => t.worker.terminate()));
  }
}
