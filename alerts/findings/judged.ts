/**
 * Which mutations an incremental run judged: those of the sessions that received data since the watermark,
 * starting at or after the earliest start time that data brought (alerts/detectors/arrived_sessions.sql). A stored
 * mutation finding outside that set keeps its verdict; one inside it that was not found again no longer matches.
 */
import { z } from 'zod';
import { chTimeToIso } from '../detectors/rows.ts';
import type { Finding } from './finding.ts';

const ArrivedSessionRow = z.object({
  tenant: z.string(),
  session: z.string(),
  // Truncated to the millisecond in SQL, as a finding's event_time is: both sides compare the same instants.
  from_time: z.string().transform((s) => Date.parse(chTimeToIso(s))),
});

export interface JudgedSessions {
  /** Sessions judged in this run. */
  readonly size: number;
  /** Whether this run judged the mutation of a mutation finding. */
  judged(f: Finding): boolean;
}

const key = (tenant: string, session: string) => JSON.stringify([tenant, session]);

export function judgedSessions(rows: readonly unknown[]): JudgedSessions {
  const from = new Map<string, number>();
  for (const raw of rows) {
    const r = ArrivedSessionRow.parse(raw);
    from.set(key(r.tenant, r.session), r.from_time);
  }
  return {
    size: from.size,
    judged: (f) => {
      const t = from.get(key(f.tenant, f.session ?? ''));
      return t !== undefined && Date.parse(f.event_time) >= t;
    },
  };
}
