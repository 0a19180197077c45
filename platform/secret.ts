/**
 * A secret value (a password) that prints as `[redacted]` wherever it goes by accident: string conversion,
 * JSON (config dumps), util.inspect (console.log, test failure diffs). Only `reveal()` gives the value, at the
 * one place a client library needs it.
 */
import { inspect } from 'node:util';

const REDACTED = '[redacted]';

export class Secret {
  readonly #value: string;
  constructor(value: string) {
    this.#value = value;
  }
  reveal(): string {
    return this.#value;
  }
  get empty(): boolean {
    return this.#value === '';
  }
  toString(): string {
    return REDACTED;
  }
  toJSON(): string {
    return REDACTED;
  }
  [inspect.custom](): string {
    return REDACTED;
  }
}
