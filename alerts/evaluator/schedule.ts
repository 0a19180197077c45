/**
 * Runs a task every interval, one run at a time (the next is scheduled when the previous ends), on unref'd
 * timers so a schedule never keeps a process alive by itself. stop() waits for the run in flight.
 */
export interface Schedule {
  /** Resolves when the schedule is stopped and no run is in flight. */
  stop(): Promise<void>;
}

export interface ScheduleOptions {
  intervalMs: number;
  /** Failures are reported here, never thrown: a failed run must not end the schedule. */
  onError: (err: unknown) => void;
  /** Run once immediately (default) or wait one interval first. */
  runImmediately?: boolean;
}

export function startSchedule(task: () => Promise<unknown>, o: ScheduleOptions): Schedule {
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let inFlight: Promise<void> | undefined;

  const runOnce = () => {
    timer = undefined;
    inFlight = (async () => {
      try {
        await task();
      } catch (err) {
        try {
          o.onError(err);
        } catch {
          // a failing error reporter must not break the schedule either
        }
      }
    })().finally(() => {
      inFlight = undefined;
      if (!stopped) arm();
    });
  };
  const arm = () => {
    timer = setTimeout(runOnce, o.intervalMs);
    timer.unref();
  };

  if (o.runImmediately ?? true) runOnce();
  else arm();

  return {
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      timer = undefined;
      await inFlight;
    },
  };
}
