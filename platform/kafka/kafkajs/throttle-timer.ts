/**
 * kafkajs 2.2.4 (pinned, unmaintained) arms its throttle check with `setTimeout(fn, throttledUntil - Date.now())`,
 * negative whenever no broker throttles (throttledUntil 0): Node 24 then prints a TimeoutNegativeWarning on stderr at
 * every such call. This puts the same method back with the delay clamped to the 1 ms Node used anyway: same
 * behaviour, no warning.
 */
import { createRequire } from 'node:module';

const CHECK_PENDING_REQUESTS_INTERVAL = 10; // kafkajs' own constant (src/network/requestQueue/index.js)

interface RequestQueueLike {
  throttledUntil: number;
  throttleCheckTimeoutId: ReturnType<typeof setTimeout> | null;
  pending: unknown[];
  checkPendingRequests(): void;
}

const RequestQueue = createRequire(import.meta.url)('kafkajs/src/network/requestQueue/index.js') as {
  prototype: RequestQueueLike & { scheduleCheckPendingRequests(this: RequestQueueLike): void };
};

RequestQueue.prototype.scheduleCheckPendingRequests = function scheduleCheckPendingRequests(this: RequestQueueLike) {
  let scheduleAt = this.throttledUntil - Date.now();
  if (this.throttleCheckTimeoutId) return;
  if (this.pending.length > 0) scheduleAt = scheduleAt > 0 ? scheduleAt : CHECK_PENDING_REQUESTS_INTERVAL;
  this.throttleCheckTimeoutId = setTimeout(
    () => {
      this.throttleCheckTimeoutId = null;
      this.checkPendingRequests();
    },
    Math.max(scheduleAt, 1),
  );
};
