/** The digest worker thread: computes a batch's leaves off the ingest's main thread (see digest-offload.ts). */
import { parentPort } from 'node:worker_threads';
import { compute, type WorkerRequest, type WorkerResponse } from './digest-source.ts';

const port = parentPort;
if (!port) throw new Error('audit/digest-worker.ts runs only as a worker thread');
port.on('message', (req: WorkerRequest) => {
  let res: WorkerResponse;
  try {
    res = { id: req.id, result: compute(req) };
  } catch (err) {
    res = { id: req.id, error: (err as Error).message };
  }
  port.postMessage(res);
});
