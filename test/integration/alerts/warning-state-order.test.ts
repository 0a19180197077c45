/** Two transitions of one warning recorded in one run keep their order: the current state is the last one. */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { currentState, recordStateChanges, type StateChange } from '../../../alerts/warnings/store.ts';
import { freshDatabase, type TestDatabase } from '../../../testkit/services.ts';

let db: TestDatabase;
before(async () => {
  db = await freshDatabase('tt_warning_order');
});
after(() => db.drop());

test('a warning reactivated and escalated in the same run ends escalated, whatever the random change ids', async () => {
  const at = new Date('2026-11-30T03:00:00.000Z');
  // Many warnings, so that a tie broken by the random change_id would show up in about half of them.
  const changes: StateChange[] = Array.from({ length: 40 }, (_, i) => [
    {
      tenant: 't',
      code: 'STALE_INDEX',
      source: `index-${i}`,
      from: 'retired' as const,
      to: 'active' as const,
      by: 'tooltrail-evaluator',
      at,
      reason: 'seen again',
    },
    {
      tenant: 't',
      code: 'STALE_INDEX',
      source: `index-${i}`,
      from: 'active' as const,
      to: 'escalated' as const,
      by: 'tooltrail-evaluator',
      at,
      reason: 'no owner',
    },
  ]).flat();
  await recordStateChanges(db.ch, db.database, changes);
  const states = await Promise.all(
    Array.from({ length: 40 }, (_, i) =>
      currentState(db.ch, db.database, { tenant: 't', code: 'STALE_INDEX', source: `index-${i}` }),
    ),
  );
  assert.deepEqual(new Set(states.map((s) => s?.state)), new Set(['escalated']));
});
