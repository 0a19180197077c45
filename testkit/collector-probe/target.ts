/**
 * What the probe's cases play against: a collector's port, the abusing credential, and the bounds the collector's
 * configuration sets (its wire limit, one credential's share of slots and bytes, its HTTP timeouts).
 */
import { type CollectorConfig, tenantLimits } from '../../collector/config.ts';
import type { ProbeTarget } from './cases.ts';

export interface ProbedCollector {
  port: number;
  limits: CollectorConfig['limits'];
  http: Pick<CollectorConfig['http'], 'headersTimeoutMs' | 'requestTimeoutMs'>;
}

export function probeTarget(collector: ProbedCollector, token: string): ProbeTarget {
  const { limits, http } = collector;
  const share = tenantLimits(limits);
  return {
    port: collector.port,
    token,
    limits: {
      maxWireBytes: limits.maxWireBytes,
      tenantRequests: share.requests,
      tenantBytes: share.bytes,
      headersTimeoutMs: http.headersTimeoutMs,
      requestTimeoutMs: http.requestTimeoutMs,
    },
  };
}
