/**
 * Witness sinks: where each signed checkpoint goes besides ClickHouse, so that a later rewrite of the database is
 * caught by a copy it cannot reach. A file sink writes `<dir>/<tenant>/<log>/<size>.checkpoint` (and `latest`); an
 * HTTP sink POSTs the note as text/plain. A sink that fails does not stop the ingest: the failure is returned,
 * counted and told, and the next checkpoint is published again.
 */
import { mkdir, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

export interface PublishedCheckpoint {
  tenant: string;
  log: string;
  size: number;
  note: string;
}

export interface WitnessSink {
  readonly name: string;
  publish(c: PublishedCheckpoint): Promise<void>;
}

const safe = (s: string) => encodeURIComponent(s);

export function fileWitness(dir: string): WitnessSink {
  return {
    name: `file:${dir}`,
    async publish(c) {
      const at = join(dir, safe(c.tenant), safe(c.log));
      await mkdir(at, { recursive: true });
      await writeFile(join(at, `${c.size}.checkpoint`), c.note);
      // `latest` is replaced atomically: a reader never sees half a note.
      await writeFile(join(at, '.latest.tmp'), c.note);
      await rename(join(at, '.latest.tmp'), join(at, 'latest'));
    },
  };
}

export function httpWitness(url: string, timeoutMs = 5000): WitnessSink {
  return {
    name: `http:${url}`,
    async publish(c) {
      const res = await fetch(url, {
        method: 'POST',
        headers: {
          'content-type': 'text/plain; charset=utf-8',
          'x-tooltrail-tenant': c.tenant,
          'x-tooltrail-log': c.log,
        },
        body: c.note,
        signal: AbortSignal.timeout(timeoutMs),
      });
      if (!res.ok) throw new Error(`witness ${url} answered ${res.status}`);
    },
  };
}

/** Publishes to every sink; returns the failures (never throws). */
export async function publishToWitnesses(
  sinks: readonly WitnessSink[],
  c: PublishedCheckpoint,
): Promise<{ sink: string; error: string }[]> {
  const results = await Promise.allSettled(sinks.map((s) => s.publish(c)));
  return results.flatMap((r, i) =>
    r.status === 'rejected' ? [{ sink: sinks[i]!.name, error: (r.reason as Error)?.message ?? String(r.reason) }] : [],
  );
}
