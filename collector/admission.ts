/**
 * Admission control: at most `maxConcurrentRequests` export requests are handled at once, and the decompressed
 * bodies held at once stay under `maxInFlightBytes`. Beyond either, requests are refused (429 + Retry-After) instead
 * of queued, so memory stays bounded whatever Kafka does.
 */
export class Admission {
  readonly state = { requests: 0, bytes: 0 };

  constructor(
    private readonly maxRequests: number,
    private readonly maxBytes: number,
  ) {}

  tryEnter(): boolean {
    if (this.state.requests >= this.maxRequests) return false;
    this.state.requests++;
    return true;
  }

  leave(): void {
    this.state.requests--;
  }

  tryReserve(bytes: number): boolean {
    if (this.state.bytes + bytes > this.maxBytes) return false;
    this.state.bytes += bytes;
    return true;
  }

  release(bytes: number): void {
    this.state.bytes -= bytes;
  }
}
