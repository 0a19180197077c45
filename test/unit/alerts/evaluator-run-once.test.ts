import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { defaultAlertsConfig } from '../../../alerts/config.ts';
import { type EvaluationReport, Evaluator } from '../../../alerts/evaluator/evaluator.ts';
import type { ClickHouseClient } from '../../../platform/clickhouse.ts';

/** An evaluation report that found `found` rows and did nothing else. */
function reportFound(found: number): EvaluationReport {
  return {
    at: '',
    durationMs: 0,
    since: '',
    arrivedSince: null,
    judgedSessions: null,
    found,
    firing: 0,
    opened: 0,
    pending: 0,
    resolved: 0,
    renewed: 0,
    unchanged: 0,
    alertsSent: 0,
    sendError: null,
    stateChanges: 0,
  };
}

/** An evaluator whose evaluation is a controllable fake: each run records how many rows "existed" when it began. */
function fakeEvaluator() {
  const ev = new Evaluator({
    ch: {} as ClickHouseClient,
    database: 'unused',
    config: defaultAlertsConfig(),
    sink: { post: async () => {} },
  });
  const state = { rows: 0, started: 0, release: [] as (() => void)[] };
  Object.defineProperty(ev, 'evaluate', {
    configurable: true,
    value: async (): Promise<EvaluationReport> => {
      state.started++;
      const seen = state.rows;
      await new Promise<void>((r) => state.release.push(r));
      return reportFound(seen);
    },
  });
  return { ev, state };
}

const flush = () => new Promise<void>((r) => setImmediate(r));

describe('evaluator runOnce', () => {
  it('a run asked for while another is in flight starts after it, so it sees the rows stored meanwhile', async () => {
    const { ev, state } = fakeEvaluator();
    const scheduled = ev.runOnce(); // e.g. the schedule's run, reading the tables now
    state.rows = 6; // the caller's data lands while that run is in flight
    const asked = ev.runOnce();
    const alsoAsked = ev.runOnce();
    assert.equal(state.started, 1, 'runs never overlap');
    state.release.shift()!();
    assert.equal((await scheduled).found, 0);
    await flush();
    assert.equal(state.started, 2, 'one queued run for every caller that arrived meanwhile');
    state.release.shift()!();
    assert.equal((await asked).found, 6);
    assert.equal(await alsoAsked, await asked);
  });

  it('a failed run in flight does not fail the run queued after it', async () => {
    const { ev, state } = fakeEvaluator();
    let calls = 0;
    let failFirst = () => {};
    Object.defineProperty(ev, 'evaluate', {
      value: async (): Promise<EvaluationReport> => {
        calls++;
        if (calls === 1) {
          await new Promise<void>((_, reject) => {
            failFirst = () => reject(new Error('ClickHouse went away'));
          });
        }
        return reportFound(state.rows);
      },
    });
    const first = ev.runOnce();
    const second = ev.runOnce();
    failFirst();
    await assert.rejects(first, /ClickHouse went away/);
    assert.equal((await second).found, 0);
    assert.equal(calls, 2);
  });
});
