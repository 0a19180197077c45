/** The JavaScript walk of canonical version 2 (audit/native-canonical.ts): bytes as they lie, and never past them. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ARR_I64, column, U64 } from '../../../audit/native-block.ts';
import { Canonical, writeValue } from '../../../audit/native-canonical.ts';

describe('the JavaScript canonical walk', () => {
  it('copies a 64-bit value as it lies, little-endian', () => {
    const body = Buffer.from('0102030405060708', 'hex');
    const out = new Canonical();
    writeValue(out, body, column(U64, 0), 0, []);
    assert.equal(out.buf.subarray(0, out.pos).toString('hex'), '0102030405060708');
  });

  it('refuses a 64-bit value or an array of them that runs past the block, instead of copying fewer bytes', () => {
    const body = Buffer.alloc(12);
    assert.throws(() => writeValue(new Canonical(), body, column(U64, 8), 0, []), /runs past the block's end/);
    // One row whose offsets say 2 elements, of which the block holds 4 bytes.
    body.writeBigUInt64LE(2n, 0);
    assert.throws(() => writeValue(new Canonical(), body, column(ARR_I64, 0, 8), 0, []), /runs past the block's end/);
  });
});
