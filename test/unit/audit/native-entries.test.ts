/**
 * Digest entries from the Native blocks the writer sends equal canonical.ts's over the same rows, with the
 * JavaScript writer (nothing compiled: the native row hasher's run of the same cases is
 * test/integration/audit/native-row-hasher.test.ts).
 */
import { beforeEach, describe, it } from 'node:test';
import { DIGEST_ENTRY_CASES, useHasher } from './digest-entry-cases.ts';

describe('digest entries from Native blocks (JavaScript writer)', () => {
  beforeEach(() => useHasher(null));
  for (const [name, run] of DIGEST_ENTRY_CASES) it(name, run);
});
