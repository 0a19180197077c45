import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { PreparedSummary } from '../../../collector/prepare.ts';
import { SenderLog } from '../../../collector/sender-log.ts';

const summary = (spanId: string): Pick<PreparedSummary, 'samples' | 'byReason' | 'flagsByReason'> => ({
  byReason: [['invalid_trace_id', 2]],
  flagsByReason: [['invalid_contract_attribute', 3]],
  samples: [
    { outcome: 'rejected', reason: 'invalid_trace_id', spanId, message: 'trace_id must be 16 bytes, got 4' },
    {
      outcome: 'flagged',
      reason: 'invalid_contract_attribute',
      spanId,
      message: 'tooltrail.result.complete must be bool',
    },
  ],
});

test('tells each rejection and flag reason once per minute per tenant, with an example span and the spans since', () => {
  const lines: string[] = [];
  let now = 0;
  const log = new SenderLog(
    (l) => lines.push(l),
    60_000,
    () => now,
  );
  log.record('acme', summary('00000000000000aa'));
  log.record('acme', summary('00000000000000bb'));
  log.record('beta', summary('00000000000000cc'));
  assert.deepEqual(lines, [
    'tooltrail collector: tenant acme: 2 span(s) rejected, invalid_trace_id; e.g. span 00000000000000aa: trace_id must be 16 bytes, got 4',
    'tooltrail collector: tenant acme: 3 span(s) kept flagged, invalid_contract_attribute; e.g. span 00000000000000aa: tooltrail.result.complete must be bool',
    'tooltrail collector: tenant beta: 2 span(s) rejected, invalid_trace_id; e.g. span 00000000000000cc: trace_id must be 16 bytes, got 4',
    'tooltrail collector: tenant beta: 3 span(s) kept flagged, invalid_contract_attribute; e.g. span 00000000000000cc: tooltrail.result.complete must be bool',
  ]);
  now = 60_000;
  lines.length = 0;
  log.record('acme', summary('00000000000000dd'));
  assert.match(
    lines[0] ?? '',
    /tenant acme: 2 span\(s\) rejected, invalid_trace_id \(and 2 more since the last report\); e\.g\. span 00000000000000dd/,
  );
  assert.equal(lines.length, 2);
});
