/**
 * The security probe's cases (testkit/collector-probe: lying lengths, chunked lies, pipelined garbage, slow headers
 * and bodies, both JSON spellings, deep nesting in JSON and protobuf) against a real collector over raw sockets.
 * After each: the precise answer with its reason, the in-flight gauges back to 0, another tenant served (200)
 * while the abuse held what it could and after it. The last tests switch a guard off and expect the checks to fail.
 */
import assert from 'node:assert/strict';
import { afterEach, describe, it } from 'node:test';
import type { CollectorConfigInput } from '../../../collector/config.ts';
import { PROBE_CASES, type ProbeCase, type ProbeTarget } from '../../../testkit/collector-probe/cases.ts';
import { checkProbeCase, postEmptyExport } from '../../../testkit/collector-probe/check.ts';
import { probeTarget } from '../../../testkit/collector-probe/target.ts';
import { TOKEN_A, TOKEN_B } from '../../unit/collector/fixtures.ts';
import { inFlight, type RunningCollector, startCollector } from './harness.ts';

const MiB = 1024 * 1024;
/** Short timeouts and small byte limits so every case ends within a few seconds; the rules are the defaults'. */
const CONFIG: CollectorConfigInput = {
  sink: 'discard',
  http: { headersTimeoutMs: 500, requestTimeoutMs: 1_000 },
  limits: { maxConcurrentRequests: 16, maxWireBytes: MiB, maxBodyBytes: MiB, maxInFlightBytes: 8 * MiB },
};

const targetOf = (c: RunningCollector): ProbeTarget =>
  probeTarget({ port: Number(new URL(c.url).port), limits: c.config.limits, http: c.config.http }, TOKEN_A);

async function probe(c: RunningCollector, probeCase: ProbeCase, target = targetOf(c)) {
  return checkProbeCase(target, probeCase, {
    inFlight: () => inFlight(c),
    settleMs: 2_000,
    served: () => postEmptyExport(target.port, TOKEN_B),
  });
}

const caseNamed = (name: string) => PROBE_CASES.find((p) => p.name === name) as ProbeCase;

describe('the probe cases against a real collector', () => {
  let c: RunningCollector | undefined;
  afterEach(async () => {
    await c?.close();
    c = undefined;
  });

  for (const probeCase of PROBE_CASES) {
    it(`${probeCase.name}: ${probeCase.rule}; nothing held after, another tenant served`, async () => {
      c = await startCollector(CONFIG);
      const outcome = await probe(c, probeCase);
      assert.deepEqual(outcome.problems, [], `${probeCase.name}: ${JSON.stringify(outcome.seen)}`);
    });
  }
});

describe('connections answered before a request was read', () => {
  it('are counted by reason in tooltrail_collector_connection_errors_total', async () => {
    const c = await startCollector(CONFIG);
    try {
      for (const name of ['slow-headers', 'chunked-size-not-hex', 'chunked-and-content-length']) {
        assert.deepEqual((await probe(c, caseNamed(name))).problems, [], name);
      }
      const text = await c.collector.metrics.render();
      assert.match(text, /^tooltrail_collector_connection_errors_total\{reason="request_timeout"\} 1$/m);
      assert.match(text, /^tooltrail_collector_connection_errors_total\{reason="malformed_request"\} 2$/m);
    } finally {
      await c.close();
    }
  });
});

describe('the probe checks fail on a collector with a guard switched off', () => {
  let c: RunningCollector | undefined;
  afterEach(async () => {
    await c?.close();
    c = undefined;
  });

  it('without a per-tenant share, slow bodies of one credential lock another tenant out', async () => {
    c = await startCollector({ ...CONFIG, limits: { ...CONFIG.limits, maxConcurrentRequests: 4, tenantShare: 1 } });
    // The case is sized for the share the collector should have (1 of 4 slots); this one lets a credential take all.
    const target = { ...targetOf(c), limits: { ...targetOf(c).limits, tenantRequests: 4 } };
    const outcome = await probe(c, caseNamed('slow-bodies-past-tenant-share'), target);
    assert.match(
      outcome.problems.join('\n'),
      /^another tenant got 429 .*the collector is handling 4 requests.* while the abuse held$/m,
    );
  });

  it('without a request timeout, a slow body is never answered 408', async () => {
    c = await startCollector({ ...CONFIG, http: { headersTimeoutMs: 500, requestTimeoutMs: 120_000 } });
    // The case expects the timeout the collector should have (1 s); this one waits two minutes.
    const target = { ...targetOf(c), limits: { ...targetOf(c).limits, requestTimeoutMs: 1_000 } };
    const outcome = await probe(c, caseNamed('slow-body'), target);
    assert.match(outcome.problems.join('\n'), /answered \[closed no answer before the bound\], expected \[408/);
  });
});
