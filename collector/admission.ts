/**
 * Admission control: at most `maxRequests` export requests are handled at once and the request bytes held at once
 * stay under `maxBytes`; each tenant (the credential's) gets at most its own share of both, so one credential cannot
 * starve the others. Beyond any of them, requests are refused (429 + Retry-After) instead of queued, so memory stays
 * bounded whatever Kafka or a client does. A ticket gives back everything it took, once, however the request ends.
 */
export interface AdmissionLimits {
  maxRequests: number;
  maxBytes: number;
  maxRequestsPerTenant: number;
  maxBytesPerTenant: number;
}

export type AdmissionRefusal =
  | 'concurrency_limit'
  | 'tenant_concurrency_limit'
  | 'memory_limit'
  | 'tenant_memory_limit';

interface Usage {
  requests: number;
  bytes: number;
}

export class AdmissionTicket {
  private bytes = 0;
  private closed = false;

  constructor(
    private readonly total: Usage,
    private readonly tenant: Usage,
    private readonly limits: AdmissionLimits,
    private readonly onEmpty: () => void,
  ) {}

  /** Reserves `n` more bytes for this request; the refusal when the collector's or the tenant's budget is spent. */
  reserve(n: number): AdmissionRefusal | undefined {
    if (this.closed) return undefined;
    if (this.total.bytes + n > this.limits.maxBytes) return 'memory_limit';
    if (this.tenant.bytes + n > this.limits.maxBytesPerTenant) return 'tenant_memory_limit';
    this.total.bytes += n;
    this.tenant.bytes += n;
    this.bytes += n;
    return undefined;
  }

  /** Gives back `n` of this request's bytes (what is no longer held, e.g. the compressed copy). */
  release(n: number): void {
    const back = Math.min(n, this.bytes);
    this.bytes -= back;
    this.total.bytes -= back;
    this.tenant.bytes -= back;
  }

  get reservedBytes(): number {
    return this.bytes;
  }

  /** Gives back the slot and every byte; later calls do nothing. */
  close(): void {
    if (this.closed) return;
    this.release(this.bytes);
    this.closed = true;
    this.total.requests--;
    this.tenant.requests--;
    this.onEmpty();
  }
}

export class Admission {
  /** What is held now, for the gauges. */
  readonly state: Usage = { requests: 0, bytes: 0 };
  private readonly tenants = new Map<string, Usage>();

  constructor(private readonly limits: AdmissionLimits) {}

  /** A ticket for one request of `tenant`, or the limit that refuses it. */
  enter(tenant: string): AdmissionTicket | AdmissionRefusal {
    if (this.state.requests >= this.limits.maxRequests) return 'concurrency_limit';
    const usage = this.tenants.get(tenant) ?? { requests: 0, bytes: 0 };
    if (usage.requests >= this.limits.maxRequestsPerTenant) return 'tenant_concurrency_limit';
    this.tenants.set(tenant, usage);
    this.state.requests++;
    usage.requests++;
    return new AdmissionTicket(this.state, usage, this.limits, () => {
      if (usage.requests === 0 && usage.bytes === 0) this.tenants.delete(tenant);
    });
  }

  /** Tenants holding a slot now. */
  get activeTenants(): number {
    return this.tenants.size;
  }
}
