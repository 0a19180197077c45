import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseThrottled, RefusalTally } from '../../../chaos/collector-refusals.ts';

const scrape = (
  tenant: number,
  total: number,
  sink = 0,
) => `# HELP tooltrail_collector_requests_throttled_total Requests refused with 429/503, by status and reason
# TYPE tooltrail_collector_requests_throttled_total counter
tooltrail_collector_requests_throttled_total{status="429",reason="tenant_concurrency_limit"} ${tenant}
tooltrail_collector_requests_throttled_total{status="429",reason="concurrency_limit"} ${total}
tooltrail_collector_requests_throttled_total{status="503",reason="sink_unavailable"} ${sink}
tooltrail_collector_requests_total{status="200"} 999
`;

describe('chaos collector refusals', () => {
  it("reads the collector's 429/503 counters by status and reason, and nothing else", () => {
    assert.deepEqual(
      [...parseThrottled(scrape(7, 2, 1))],
      [
        ['429/tenant_concurrency_limit', 7],
        ['429/concurrency_limit', 2],
        ['503/sink_unavailable', 1],
      ],
    );
  });

  it('sums the counters over a collector restart (its counters start at 0 again)', () => {
    const t = new RefusalTally();
    t.add(parseThrottled(scrape(5, 1)));
    t.add(parseThrottled(scrape(9, 1)));
    t.add(parseThrottled(scrape(2, 0))); // restarted: 9 + 1 counted before, 2 since
    t.add(parseThrottled(scrape(4, 0, 3)));
    assert.deepEqual(t.totals(), [
      ['429/tenant_concurrency_limit', 13],
      ['503/sink_unavailable', 3],
      ['429/concurrency_limit', 1],
    ]);
  });
});
