/**
 * Runs the per-row audit work (canonical bytes + SHA-256) on one worker thread instead of the ingest's
 * main thread, which is its bottleneck. One worker per process, created on first use, unref'd while idle so it
 * never keeps a process alive. Any failure (worker crash, load error) resolves `undefined`: the recorder then
 * computes the same leaves on the main thread, so the offload can cost speed but never a leaf.
 */
import { Worker } from 'node:worker_threads';
import { FROM_SOURCES } from '../platform/package-root.ts';
import {
  asBuffers,
  type ComputedRuns,
  countsOf,
  type DigestSource,
  packBlocks,
  type WorkerResponse,
} from './digest-source.ts';

// From the sources the worker registers tsx itself (the parent may have done so through `--import tsx` or tsx's
// `register()` in bin/tooltrail.js, which a worker does not inherit); the compiled build imports its worker as it is.
function workerBoot(): string {
  if (!FROM_SOURCES) return `import(${JSON.stringify(new URL('./digest-worker.js', import.meta.url).href)});`;
  const worker = JSON.stringify(new URL('./digest-worker.ts', import.meta.url).href);
  const tsx = JSON.stringify(import.meta.resolve('tsx/esm/api'));
  return `import(${tsx}).then((m) => { m.register(); return import(${worker}); });`;
}

interface Pending {
  resolve(result: ComputedRuns | undefined): void;
}

let worker: Worker | undefined;
const pending = new Map<number, Pending>();
let nextId = 1;

function settleAll(): void {
  for (const p of pending.values()) p.resolve(undefined);
  pending.clear();
}

function ensureWorker(): Worker {
  if (worker) return worker;
  const w = new Worker(workerBoot(), { eval: true, execArgv: [] });
  w.unref();
  w.on('message', (res: WorkerResponse) => {
    const p = pending.get(res.id);
    pending.delete(res.id);
    if (pending.size === 0) w.unref();
    p?.resolve('result' in res ? { runs: asBuffers(res.result.runs), counts: res.result.counts } : undefined);
  });
  const gone = () => {
    if (worker === w) worker = undefined;
    settleAll();
  };
  w.on('error', gone);
  w.on('exit', gone);
  worker = w;
  return w;
}

/** Starts computing a batch's leaves on the worker; resolves `undefined` if the worker could not. */
export function computeOffMainThread(source: DigestSource): Promise<ComputedRuns | undefined> {
  return new Promise((resolve) => {
    const id = nextId++;
    try {
      const w = ensureWorker();
      pending.set(id, { resolve });
      w.ref();
      if (source.kind === 'rows') {
        w.postMessage({ id, kind: 'rows', rows: source.rows });
      } else {
        const { bytes, ends } = packBlocks(source.blocks);
        const counts = countsOf(source.blocks);
        w.postMessage({ id, kind: 'native', bytes, ends, counts }, [bytes.buffer, ends.buffer]);
      }
    } catch {
      pending.delete(id);
      resolve(undefined);
    }
  });
}

/** Stops the worker (tests; a process exits without it, the worker being unref'd when idle). */
export async function stopDigestWorker(): Promise<void> {
  const w = worker;
  worker = undefined;
  settleAll();
  if (w) await w.terminate();
}
