import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { encodeNative, encodeNativeChunks, nanoTimeToBigInt } from '../../../platform/native/encode.ts';

/** Reads back the single column of a one-column Native block (header: counts, name, type). */
function body(buf: Buffer, name: string, type: string): Buffer {
  let p = 0;
  const varint = () => {
    let v = 0;
    let shift = 0;
    for (;;) {
      const b = buf[p++]!;
      v += (b & 0x7f) * 2 ** shift;
      if (b < 0x80) return v;
      shift += 7;
    }
  };
  const str = () => {
    const n = varint();
    const s = buf.subarray(p, p + n).toString('utf8');
    p += n;
    return s;
  };
  assert.equal(varint(), 1);
  varint();
  assert.equal(str(), name);
  assert.equal(str(), type);
  return buf.subarray(p);
}

describe('Native encoding', () => {
  it('writes DateTime64(9) values exactly, nanoseconds included', () => {
    const times = [
      '0.000000001',
      '1700000000.123456789',
      '1700000000.999999999',
      '4294967296.000000000',
      '9223372036.854775807',
    ];
    const out = body(
      encodeNative(
        times.map((t) => ({ t })),
        [['t', 'DateTime64']],
      ),
      't',
      "DateTime64(9, 'UTC')",
    );
    times.forEach((t, i) => {
      assert.equal(out.readBigInt64LE(i * 8), nanoTimeToBigInt(t), t);
    });
  });

  it('writes strings as varint length + UTF-8, ASCII, non-ASCII and long alike', () => {
    const values = ['', 'abc', 'é🙂', 'x'.repeat(200), `${'y'.repeat(50)}ü`];
    const out = body(
      encodeNative(
        values.map((s) => ({ s })),
        [['s', 'String']],
      ),
      's',
      'String',
    );
    let p = 0;
    for (const v of values) {
      let n = 0;
      let shift = 0;
      for (;;) {
        const b = out[p++]!;
        n += (b & 0x7f) << shift;
        if (b < 0x80) break;
        shift += 7;
      }
      assert.equal(out.subarray(p, p + n).toString('utf8'), v);
      p += n;
    }
    assert.equal(p, out.length);
  });

  it('writes a Map column as offsets, then keys, then values', () => {
    const shared = { a: '1', b: '2' };
    const out = body(
      encodeNative([{ m: shared }, { m: shared }, { m: {} }], [['m', 'Map']]),
      'm',
      'Map(String, String)',
    );
    assert.deepEqual(
      [0, 8, 16].map((o) => Number(out.readBigUInt64LE(o))),
      [2, 4, 4],
    );
    assert.equal(out.subarray(24).toString('latin1'), '\x01a\x01b\x01a\x01b\x011\x012\x011\x012');
  });

  it('writes bytes as strings, Native string lists as arrays, and the same bytes in chunks with large values referenced', () => {
    const strings = (xs: string[]) => ({
      count: xs.length,
      bytes: Buffer.concat(xs.map((x) => Buffer.concat([Buffer.from([Buffer.byteLength(x)]), Buffer.from(x)]))),
    });
    const big = Buffer.alloc(70_000, 7);
    const ids = strings(Array.from({ length: 600 }, (_, i) => `id-${i}`));
    const rows = [
      { h: Buffer.from([1, 2, 3]), ids: strings(['a', 'bc']) },
      { h: big, ids },
      { h: Buffer.alloc(0), ids: strings([]) },
    ];
    const schema = [
      ['h', 'Binary'],
      ['ids', 'NativeStrings'],
    ] as const;
    const whole = encodeNative(rows, schema);
    const chunks = encodeNativeChunks(rows, schema);
    assert.deepEqual(Buffer.concat(chunks), whole);
    assert.ok(
      chunks.some((c) => c.buffer === big.buffer),
      'the large value is sent from where it lies',
    );
    const h = body(encodeNative([rows[0]!], [['h', 'Binary']]), 'h', 'String');
    assert.deepEqual(h, Buffer.from([3, 1, 2, 3]));
    const a = body(encodeNative([rows[0]!], [['ids', 'NativeStrings']]), 'ids', 'Array(String)');
    assert.deepEqual(a, Buffer.concat([Buffer.from([2, 0, 0, 0, 0, 0, 0, 0]), Buffer.from('\x01a\x02bc', 'latin1')]));
  });
});
