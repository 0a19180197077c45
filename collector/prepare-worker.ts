/** A decode thread's body: prepares each request it is given and sends back the messages in one buffer. */
import { parentPort } from 'node:worker_threads';
import { CollectorHttpError } from './errors.ts';
import { prepareMessages } from './prepare.ts';
import type { PrepareReply, PrepareRequest } from './prepare-pool.ts';

const port = parentPort;
if (!port) throw new Error('prepare-worker runs on a worker thread');

port.on('message', (request: PrepareRequest) => {
  let reply: PrepareReply;
  const transfer: ArrayBuffer[] = [];
  try {
    const body = Buffer.from(request.body.buffer, request.body.byteOffset, request.body.byteLength);
    const { messages, ...summary } = prepareMessages(body, request.format, request.tenant);
    let total = 0;
    for (const m of messages) total += m.value.length;
    const data = new Uint8Array(new ArrayBuffer(total));
    const offsets = new Int32Array(messages.length + 1);
    const spanCounts = new Int32Array(messages.length);
    let at = 0;
    messages.forEach((m, i) => {
      offsets[i] = at;
      spanCounts[i] = m.spanCount;
      data.set(m.value, at);
      at += m.value.length;
    });
    offsets[messages.length] = at;
    reply = { id: request.id, ok: true, summary, keys: messages.map((m) => m.key), spanCounts, offsets, data };
    transfer.push(data.buffer, offsets.buffer, spanCounts.buffer);
  } catch (err) {
    reply =
      err instanceof CollectorHttpError
        ? {
            id: request.id,
            ok: false,
            refusal: { statusCode: err.statusCode, rpcCode: err.rpcCode, reason: err.reason, message: err.message },
          }
        : { id: request.id, ok: false, error: err instanceof Error ? err.message : String(err) };
  }
  port.postMessage(reply, transfer);
});
