import assert from 'node:assert/strict';
import { test } from 'node:test';
import { REJECTION_WINDOW_MS, RejectionWindow } from '../../../collector/rejection-window.ts';

const summary = (reason: 'invalid_span_id' | 'invalid_timestamps', spans: number, spanId: string) => ({
  byReason: [[reason, spans]] as [typeof reason, number][],
  samples: [{ outcome: 'rejected' as const, reason, spanId, message: `bad ${spanId}` }],
});

test('the rejection window counts per tenant and reason and keeps the latest example', () => {
  let now = 10 * 60_000;
  const w = new RejectionWindow(() => now);
  w.record('acme', summary('invalid_span_id', 2, 'aa'));
  now += 1_000;
  w.record('acme', summary('invalid_span_id', 3, 'bb'));
  w.record('globex', summary('invalid_timestamps', 1, 'cc'));
  const acme = w.report('acme', 0);
  assert.deepEqual(
    acme.map((r) => [r.tenant, r.reason, r.spans, r.example_span_id, r.message]),
    [['acme', 'invalid_span_id', 5, 'bb', 'bad bb']],
  );
  assert.equal(w.report(undefined, 0).length, 2, 'every tenant for the operator');
});

test('the rejection window forgets what is older than an hour, and --since cuts by minute', () => {
  let now = 0;
  const w = new RejectionWindow(() => now);
  w.record('acme', summary('invalid_span_id', 1, 'old'));
  now = 30 * 60_000;
  w.record('acme', summary('invalid_span_id', 4, 'new'));
  assert.equal(w.report('acme', now - 5 * 60_000)[0]?.spans, 4, 'only the last five minutes');
  assert.equal(w.report('acme', 0)[0]?.spans, 5);
  now = REJECTION_WINDOW_MS + 2 * 60_000;
  assert.equal(w.report('acme', 0)[0]?.spans, 4, 'the first minute fell out of the hour');
  now = 30 * 60_000 + REJECTION_WINDOW_MS + 60_000;
  assert.deepEqual(w.report('acme', 0), [], 'nothing left, and the entry is gone');
});
