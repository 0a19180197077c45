/**
 * The hostile-clients fault: while the soak's load runs, a second credential plays the security probe's cases
 * (testkit/collector-probe) against the stack's collector, which runs with the defaults except shorter timeouts
 * (chaos/stack.ts). The rules: each case gets its precise answer, and a third, quiet tenant is served (200)
 * while each abuse holds what it can and after it; the soak's own rule (nothing acknowledged lost) covers the load.
 * The in-flight gauges are not checked here (the load shares them); the test suite checks them on a quiet collector.
 */

import { defaultCollectorConfig } from '../collector/config.ts';
import { PROBE_CASES, type ProbeCase } from '../testkit/collector-probe/cases.ts';
import { checkProbeCase, type ProbeOutcome, postEmptyExport } from '../testkit/collector-probe/check.ts';
import { probeTarget } from '../testkit/collector-probe/target.ts';
import { BYSTANDER_TOKEN, CHAOS_COLLECTOR_TIMEOUTS, HOSTILE_TOKEN, type Stack } from './stack.ts';

/** Cases that count on the credential's whole share of slots or bytes: run one at a time, after the others. */
const SHARE_CASES = new Set(['content-length-over-tenant-share-unfinished', 'slow-bodies-past-tenant-share']);

/** Plays every probe case; resolves with what happened, or throws listing every case whose rule did not hold. */
export async function hostileClients(stack: Stack): Promise<string> {
  const port = Number(new URL(stack.collectorUrl).port);
  const t = probeTarget(
    { port, limits: defaultCollectorConfig({}).limits, http: CHAOS_COLLECTOR_TIMEOUTS },
    HOSTILE_TOKEN,
  );
  // A quiet third tenant is asked, one request at a time: the load's own tenant can fill its share by itself when
  // Kafka is slow, and the cases run side by side (as many checks at once would fill a share too).
  let queue: Promise<unknown> = Promise.resolve();
  const served = () => {
    const next = queue.then(() => postEmptyExport(t.port, BYSTANDER_TOKEN));
    queue = next.catch(() => {});
    return next;
  };
  const checks = { settleMs: 0, served };
  const run = (c: ProbeCase) => checkProbeCase(t, c, checks);
  const outcomes: ProbeOutcome[] = await Promise.all(PROBE_CASES.filter((c) => !SHARE_CASES.has(c.name)).map(run));
  for (const c of PROBE_CASES.filter((p) => SHARE_CASES.has(p.name))) outcomes.push(await run(c));
  const failed = outcomes.filter((o) => o.problems.length > 0);
  if (failed.length > 0) {
    throw new Error(failed.map((o) => `${o.name}: ${o.problems.join('; ')}`).join(' || '));
  }
  const statuses = new Map<string, number>();
  for (const o of outcomes)
    for (const s of o.seen) statuses.set(String(s.status), (statuses.get(String(s.status)) ?? 0) + 1);
  const answers = [...statuses].map(([s, n]) => `${n} x ${s}`).join(', ');
  return `${outcomes.length} probe cases by a second credential, each answered as owed (${answers}); a third tenant served during and after each`;
}
