import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { formatAgentRun, runCarefulCleanupAgent, runCleanupAgent, shouldUseColor } from '../../../demo/agent/index.ts';
import { memoryTracing } from './fixtures/tracing.ts';

const tracing = memoryTracing();
after(() => tracing.shutdown());

/** Start of an ANSI SGR sequence. */
const ESC = '\u001b[';
const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/;

test('tells what the agent saw, what it could not see, what the guard decided and the reviewer options', async () => {
  const summary = await runCleanupAgent({
    tooltrail: tracing.tooltrail('review_requested'),
    guard: 'on',
    sessionId: 'render-review',
  });
  const text = formatAgentRun(summary, { color: false });
  for (const expected of [
    'guard ON: mutations on unsafe evidence are sent for review',
    'INCOMPLETE and EMPTY · 0 items',
    'could not see: MORE_PAGES_AVAILABLE',
    'TIME_BUDGET_EXCEEDED [inventory-shard-ap-south-1]',
    'VISIBILITY_RESTRICTED [inventory-acl]',
    'warning STALE_INDEX [inventory-search-index]',
    'completeness UNKNOWN',
    'REVIEW REQUESTED -> did not run',
    're-read with a deadline >= 2 s until complete',
    'act only on the 3 returned ids (sa-1029, sa-1034, sa-1046)',
    'agent: "the search returns nothing: every service account has an owner"',
    'mutations: 0 ran · 0 refused · 3 sent for review',
    'control SA-OWNER-1 left failing',
  ]) {
    assert.ok(text.includes(expected), `missing: ${expected}\n${text}`);
  }
  // Evidence is shown as the session's call numbers, not as call ids.
  assert.ok(!UUID.test(text), 'no raw call id in the story');
  assert.match(text, /read #5 \(search_service_accounts\) was not complete: MORE_PAGES_AVAILABLE/);
});

test('shows unchecked mutations and their consequences when the guard is off', async () => {
  const summary = await runCleanupAgent({ tooltrail: tracing.tooltrail(), guard: 'off', sessionId: 'render-off' });
  const text = formatAgentRun(summary, { color: false });
  assert.ok(text.includes('guard OFF'));
  assert.equal(text.match(/RAN unchecked/g)?.length, 3);
  assert.equal(text.match(/had it been on, the guard would have refused it: EVIDENCE_INCOMPLETE/g)?.length, 3);
  assert.match(text, /control SA-OWNER-1 marked compliant, which is FALSE: 3 unowned accounts remain/);
  assert.match(text, /sa-1036 \(hidden from role cleanup-bot\)/);
});

test('shows the careful run as allowed, with the pages it followed', async () => {
  const summary = await runCarefulCleanupAgent({ tooltrail: tracing.tooltrail(), guard: 'on', sessionId: 'render-ok' });
  const text = formatAgentRun(summary, { color: false });
  assert.equal(text.match(/ALLOWED \(evidence complete\) -> ran/g)?.length, 3);
  assert.match(text, /complete · 6 items · 2 pages · snapshot inv-r\d+/);
  assert.match(text, /RESULT_LIMIT_REACHED/);
  assert.ok(text.includes('no account without an owner remains'));
});

test('writes ANSI colours only when asked, and NO_COLOR turns the default off', async () => {
  const summary = await runCleanupAgent({ tooltrail: tracing.tooltrail(), guard: 'on', sessionId: 'render-color' });
  assert.ok(!formatAgentRun(summary, { color: false }).includes(ESC));
  assert.ok(formatAgentRun(summary, { color: true }).includes(ESC));
  const saved = process.env.NO_COLOR;
  process.env.NO_COLOR = '1';
  try {
    assert.equal(shouldUseColor(), false);
    assert.ok(!formatAgentRun(summary).includes(ESC));
  } finally {
    if (saved === undefined) delete process.env.NO_COLOR;
    else process.env.NO_COLOR = saved;
  }
});
