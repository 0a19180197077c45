/** A service problem a user can fix: printed as one line naming the cause and the fix, never a stack trace. */
export class ServiceError extends Error {
  override name = 'ServiceError';
  constructor(
    readonly service: string,
    readonly problem: string,
    readonly fix: string,
  ) {
    super(`${service}: ${problem} — ${fix}`);
  }
}
