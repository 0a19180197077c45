import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DeadLetterLog, type LogTimers } from '../../../ingest/dead-letter-log.ts';

/** A clock and timers the test moves by hand. */
function fakeTime() {
  let now = 1_000_000;
  const timers = new Map<number, { at: number; fn: () => void }>();
  let next = 1;
  const t: LogTimers = {
    setTimeout: (fn, ms) => {
      timers.set(next, { at: now + ms, fn });
      return next++;
    },
    clearTimeout: (h) => {
      timers.delete(h as number);
    },
  };
  return {
    timers: t,
    now: () => now,
    pending: () => timers.size,
    advance(ms: number) {
      now += ms;
      for (const [id, timer] of [...timers].sort((a, b) => a[1].at - b[1].at)) {
        if (timer.at <= now) {
          timers.delete(id);
          timer.fn();
        }
      }
    },
  };
}

function setUp() {
  const time = fakeTime();
  const lines: string[] = [];
  const log = new DeadLetterLog({
    log: (l) => lines.push(l),
    topic: 'otlp_spans_dlq',
    timers: time.timers,
    now: time.now,
  });
  return { time, lines, log };
}

describe('dead-letter log', () => {
  it('says the first letter of a reason at once, naming the count, the topic, the cause and the command', () => {
    const { lines, log } = setUp();
    log.record('missing_tenant', 1);
    assert.equal(lines.length, 1);
    assert.match(lines[0]!, /dead-lettered 1 message to otlp_spans_dlq: missing_tenant: .*default tenant/);
    assert.match(lines[0]!, /tooltrail dlq list --reason missing_tenant/);
  });

  it('says a reason at most once per minute, with the count since its last line', () => {
    const { time, lines, log } = setUp();
    log.record('missing_tenant', 1);
    time.advance(10_000);
    log.record('missing_tenant', 4);
    time.advance(20_000);
    log.record('missing_tenant', 2);
    assert.equal(lines.length, 1, 'nothing more within the minute');
    time.advance(29_999);
    assert.equal(lines.length, 1);
    time.advance(1);
    assert.equal(lines.length, 2, 'the minute is over: one line for what came since');
    assert.match(lines[1]!, /dead-lettered 6 messages to otlp_spans_dlq in the last 60 s: missing_tenant/);
    time.advance(120_000);
    assert.equal(lines.length, 2, 'no line for a minute without letters');
    log.record('missing_tenant', 3);
    assert.equal(lines.length, 3, 'after a quiet minute the next letter is said at once');
    assert.match(lines[2]!, /dead-lettered 3 messages .* in the last 120 s: missing_tenant/);
  });

  it('keeps each reason to its own minute', () => {
    const { time, lines, log } = setUp();
    log.record('missing_tenant', 1);
    log.record('decode_error', 2);
    log.record('missing_tenant', 1);
    assert.equal(lines.length, 2);
    assert.match(lines[1]!, /2 messages .*: decode_error: not an OTLP protobuf/);
    time.advance(60_000);
    assert.equal(lines.length, 3);
    assert.match(lines[2]!, /1 message .*: missing_tenant/);
  });

  it('says what is pending when closed, and leaves no timer behind', () => {
    const { time, lines, log } = setUp();
    log.record('invalid_tenant', 1);
    log.record('invalid_tenant', 5);
    assert.equal(time.pending(), 1);
    log.close();
    assert.equal(lines.length, 2);
    assert.match(lines[1]!, /dead-lettered 5 messages .*: invalid_tenant/);
    assert.equal(time.pending(), 0);
  });

  it('survives a logger that throws', () => {
    const time = fakeTime();
    const log = new DeadLetterLog({
      log: () => {
        throw new Error('broken');
      },
      topic: 't',
      timers: time.timers,
      now: time.now,
    });
    assert.doesNotThrow(() => log.record('decode_error', 1));
  });
});
