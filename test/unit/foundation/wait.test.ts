/** testkit/wait.ts: the waits every test shares return what held, and fail naming what did not. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { until, untilTurn } from '../../../testkit/wait.ts';

describe('until', () => {
  it('returns the first truthy value the check gives', async () => {
    let n = 0;
    assert.equal(await until('n reaches 3', () => ++n >= 3 && `at ${n}`, { everyMs: 1 }), 'at 3');
  });

  it('fails after its timeout naming what it waited for and what the check last saw', async () => {
    await assert.rejects(
      until('the cows come home', () => false, { timeoutMs: 20, everyMs: 5, describe: () => 'no cows' }),
      /timed out after 20 ms waiting until the cows come home; last seen: no cows/,
    );
  });

  it('fails at once when the check throws, unless told that errors mean "not yet"', async () => {
    await assert.rejects(
      until('never', () => {
        throw new Error('broker down');
      }),
      /broker down/,
    );
    let calls = 0;
    const value = await until(
      'the broker answers',
      () => {
        if (++calls < 3) throw new Error('electing');
        return 'answered';
      },
      { everyMs: 1, ignoreErrors: true },
    );
    assert.equal(value, 'answered');
    await assert.rejects(
      until(
        'never',
        () => {
          throw new Error('still electing');
        },
        { timeoutMs: 10, everyMs: 2, ignoreErrors: true },
      ),
      /last error: still electing/,
    );
  });
});

describe('untilTurn', () => {
  it('resolves once the condition holds, and fails naming it after its turns', async () => {
    let flag = false;
    setImmediate(() => {
      flag = true;
    });
    await untilTurn('the flag is set', () => flag);
    await assert.rejects(
      untilTurn('never set', () => false, 5),
      /not reached within 5 event-loop turns: never set/,
    );
  });
});
