/** Owner changes that share a timestamp keep the order they were made in: the current owner is the last one set. */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { listOwners, removeOwner, setOwner } from '../../../alerts/owners/store.ts';
import { freshDatabase, type TestDatabase } from '../../../testkit/services.ts';

let db: TestDatabase;
before(async () => {
  db = await freshDatabase('tt_owner_order');
});
after(() => db.drop());

const at = new Date('2026-11-30T03:00:00.000Z');
const meta = (reason: string) => ({ by: 'sre@example.com', reason, at });
// Many subjects, so that a tie broken by the random change_id would show up in about half of them.
const tools = Array.from({ length: 30 }, (_, i) => `delete_resource_${i}`);

test('the last of two owners set in the same millisecond is the current owner, whatever the random change ids', async () => {
  for (const tool of tools) {
    const subject = { tenant: 't', kind: 'tool' as const, subject: tool, source: '' };
    await setOwner(db.ch, db.database, subject, { owner: 'first-rotation', team: 'a' }, meta('initial'));
    await setOwner(db.ch, db.database, subject, { owner: 'second-rotation', team: 'b' }, meta('handover'));
  }
  const owners = (await listOwners(db.ch, db.database, 't')).filter((o) => tools.includes(o.subject));
  assert.equal(owners.length, tools.length);
  assert.deepEqual(new Set(owners.map((o) => o.owner)), new Set(['second-rotation']));
});

test('an owner removed in the same millisecond it was set has no current owner', async () => {
  for (const tool of tools) {
    const subject = { tenant: 'u', kind: 'tool' as const, subject: tool, source: '' };
    await setOwner(db.ch, db.database, subject, { owner: 'someone', team: '' }, meta('set by mistake'));
    await removeOwner(db.ch, db.database, subject, meta('undo'));
  }
  const owners = (await listOwners(db.ch, db.database, 'u')).filter((o) => o.tenant === 'u');
  assert.deepEqual(owners, []);
});
