// test-lane: self-contained (no service: the row hasher npm ci compiled with the machine's C compiler)
/**
 * The native row hasher (audit/native-core, compiled by `npm ci`): built and current, in agreement with the
 * JavaScript writer on corrupted blocks, and its digest entries equal canonical.ts's on the cases the unit test
 * runs with the JavaScript writer (test/unit/audit/native-entries.test.ts). Here, not among the unit tests, which
 * need no compiler.
 */
import { beforeEach, describe, it } from 'node:test';
import { nativeRowHasher } from '../../../audit/native-core/index.ts';
import { DIGEST_ENTRY_CASES, NATIVE_ROW_HASHER_CASES, useHasher } from '../../unit/audit/digest-entry-cases.ts';

describe('the native row hasher', () => {
  for (const [name, run] of NATIVE_ROW_HASHER_CASES) it(name, run);
});

describe('digest entries from Native blocks (native row hasher)', () => {
  beforeEach(() => useHasher(nativeRowHasher ?? null));
  for (const [name, run] of DIGEST_ENTRY_CASES) it(name, run);
});
