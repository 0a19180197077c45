/** "Now", injected: the evaluator, the lifecycle rules and the tests all read time through a Clock. */
export type Clock = () => Date;

export const systemClock: Clock = () => new Date();

export const DAY_MS = 86_400_000;

export function addSeconds(t: Date, seconds: number): Date {
  return new Date(t.getTime() + seconds * 1000);
}
