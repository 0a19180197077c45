/**
 * CPU time of the local services, for benchmarks: on 2 shared cores wall time moves with other people's load,
 * CPU seconds spent by the server on our queries much less so.
 */
import { readFileSync } from 'node:fs';
import { processPaths, runningPid } from '../../services/process.ts';

/** user + system CPU ms of a process so far, from /proc; undefined when it cannot be read (not Linux, gone). */
export function processCpuMs(pid: number): number | undefined {
  try {
    // Fields after the ")" closing the command name: utime and stime are the 12th and 13th, in clock ticks
    // (100 per second on Linux).
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
    const ticks = Number(fields[11]) + Number(fields[12]);
    return Number.isFinite(ticks) ? ticks * 10 : undefined;
  } catch {
    return undefined;
  }
}

/**
 * A reader of the CPU used by the ClickHouse server that `tooltrail services up` started under `home`;
 * undefined when that server is not a local process (TOOLTRAIL_CLICKHOUSE_URL). Every client's queries count.
 */
export function localClickHouseCpu(home: string): (() => number | undefined) | undefined {
  const pid = runningPid(processPaths(home, 'clickhouse'));
  if (pid === undefined || processCpuMs(pid) === undefined) return undefined;
  return () => processCpuMs(pid);
}
