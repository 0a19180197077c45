/**
 * The ingest's direct decoder must be indistinguishable from the generated one: for every payload, the same rows,
 * the same rejections (and dead-letter bytes), the same re-encoding, and for broken bytes the same error.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Attr, OtelResource } from '../../../contract/index.ts';
import { type FlattenOptions, flatten, selectSpans } from '../../../ingest/flatten.ts';
import {
  decodeExportTraceServiceRequest,
  decodeExportTraceServiceRequestFast,
  type ExportTraceServiceRequest,
  encodeExportTraceServiceRequest,
} from '../../../platform/otlp/index.ts';
import { syntheticMessage } from '../../../testkit/ingest.ts';
import { field, prng, randomRequest, randomSpan, sdkPayload } from './otlp-payloads.ts';

const OPTIONS: FlattenOptions[] = [{}, { defaultTenant: 'fallback' }, { tenant: 'authenticated' }];

type Outcome = { error: string } | { request: ExportTraceServiceRequest };

function outcome(decode: (b: Uint8Array) => ExportTraceServiceRequest, bytes: Uint8Array): Outcome {
  try {
    return { request: decode(bytes) };
  } catch (err) {
    return { error: `${(err as Error).name}: ${(err as Error).message}` };
  }
}

/** Asserts both decoders agree on `bytes`; returns whether they decoded it. */
function assertSame(bytes: Uint8Array, label: string): boolean {
  const slow = outcome(decodeExportTraceServiceRequest, bytes);
  const fast = outcome(decodeExportTraceServiceRequestFast, bytes);
  if ('error' in slow || 'error' in fast) {
    assert.deepEqual(fast, slow, `${label}: same error`);
    return false;
  }
  for (const o of OPTIONS) {
    const a = flatten(fast.request, o);
    const b = flatten(slow.request, o);
    assert.deepStrictEqual(a, b, `${label}: same rows with ${JSON.stringify(o)}`);
    if (b.rejected.length > 0) {
      assert.deepEqual(
        Buffer.from(encodeExportTraceServiceRequest(selectSpans(fast.request, a.rejected))),
        Buffer.from(encodeExportTraceServiceRequest(selectSpans(slow.request, b.rejected))),
        `${label}: same dead letter`,
      );
    }
  }
  assert.deepEqual(
    Buffer.from(encodeExportTraceServiceRequest(fast.request)),
    Buffer.from(encodeExportTraceServiceRequest(slow.request)),
    `${label}: same re-encoding`,
  );
  return true;
}

describe('ingest direct decoder (platform/otlp stream-decode)', () => {
  it('gives the same rows as the generated decoder for 500 random requests', () => {
    for (let seed = 1; seed <= 500; seed++) {
      const bytes = encodeExportTraceServiceRequest(randomRequest(prng(seed)));
      assert.ok(assertSame(bytes, `seed ${seed}`), `seed ${seed} decodes`);
    }
  });

  it('gives the same rows for the collector-shaped bench messages and the OTel SDK serializer output', () => {
    for (let seed = 0; seed < 20; seed++) {
      assert.ok(
        assertSame(syntheticMessage({ seed, toolSpans: 8, tenant: 'acme', warningEvery: 3 }), `synthetic ${seed}`),
      );
    }
    assert.ok(assertSame(sdkPayload(), 'sdk'));
  });

  it('gives the same rows for empty, absent and repeated fields and unknown fields of every wire type', () => {
    assert.ok(assertSame(new Uint8Array(0), 'empty request'));
    assert.ok(assertSame(Buffer.from([0x0a, 0x00]), 'empty ResourceSpans'));
    const base = Buffer.from(encodeExportTraceServiceRequest(randomRequest(prng(42))));
    const unknown = Buffer.concat([
      field(99, 0, Buffer.from([0x96, 0x01])),
      field(98, 1, Buffer.alloc(8, 1)),
      field(97, 2, Buffer.from('junk')),
      field(96, 5, Buffer.alloc(4, 2)),
    ]);
    assert.ok(assertSame(Buffer.concat([unknown, base, unknown]), 'unknown top-level fields'));
    // A span with unknown fields and a second name (last wins), inside a scope given twice (last wins).
    const spanBytes = Buffer.concat([
      field(1, 2, Buffer.alloc(16, 0xab)),
      field(2, 2, Buffer.alloc(8, 0xcd)),
      field(5, 2, Buffer.from('first')),
      unknown,
      field(5, 2, Buffer.from('second')),
      field(9, 2, Buffer.concat([field(1, 2, Buffer.from('k')), field(2, 2, field(1, 2, Buffer.from('v'))), unknown])),
      field(9, 2, Buffer.concat([field(1, 2, Buffer.from('noValue'))])),
      field(
        9,
        2,
        Buffer.concat([
          field(1, 2, Buffer.from('both')),
          field(2, 2, Buffer.concat([field(1, 2, Buffer.from('s')), field(3, 0, Buffer.from([5]))])),
        ]),
      ),
    ]);
    const tenant = field(
      1,
      2,
      Buffer.concat([field(1, 2, Buffer.from(Attr.TENANT)), field(2, 2, field(1, 2, Buffer.from('acme')))]),
    );
    const rs = Buffer.concat([
      field(
        2,
        2,
        Buffer.concat([
          field(1, 2, field(1, 2, Buffer.from('a'))),
          field(2, 2, spanBytes),
          field(1, 2, field(1, 2, Buffer.from('b'))),
        ]),
      ),
      field(1, 2, tenant),
      unknown,
    ]);
    assert.ok(assertSame(field(1, 2, rs), 'resource after its spans, repeated fields'));
  });

  it('rejects spans without tenant or with bad ids for the same reasons', () => {
    const noTenant = encodeExportTraceServiceRequest({
      resourceSpans: [
        {
          resource: { attributes: [{ key: OtelResource.SERVICE_NAME, value: { stringValue: 's' } }] },
          scopeSpans: [{ spans: [randomSpan(prng(7)), randomSpan(prng(8))] }],
        },
      ],
    });
    assert.ok(assertSame(noTenant, 'no tenant'));
    assert.equal(flatten(decodeExportTraceServiceRequestFast(noTenant)).rejected[0]?.reason, 'missing_tenant');
  });

  it('decodes invalid UTF-8 the same way', () => {
    const bytes = Buffer.from(encodeExportTraceServiceRequest(randomRequest(prng(3))));
    const at = bytes.indexOf(Buffer.from('acme'));
    assert.ok(at > 0);
    for (const bad of [
      [0xc3, 0x28],
      [0xff, 0xfe],
      [0xe2, 0x82],
    ]) {
      const copy = Buffer.from(bytes);
      copy[at] = bad[0]!;
      copy[at + 1] = bad[1]!;
      assert.ok(assertSame(copy, `utf8 ${bad}`));
    }
  });

  it('re-used strings never stand in for different bytes (look-alike keys, values and names; invalid UTF-8)', () => {
    // Same length, first and last byte: one cache slot. Each request is decoded after the others filled the cache.
    const keys = ['tool.ab', 'tool.xb', 'tool.ab', 'tool\u00e9b', 'tool.xb', 'tool\u00e9b'];
    const bytesOf = (key: string) =>
      Buffer.from(
        encodeExportTraceServiceRequest({
          resourceSpans: [
            {
              resource: { attributes: [{ key: Attr.TENANT, value: { stringValue: 'acme' } }] },
              scopeSpans: [
                {
                  spans: [
                    {
                      traceId: Buffer.alloc(16, 1),
                      spanId: Buffer.alloc(8, 2),
                      name: key,
                      attributes: [{ key, value: { stringValue: key } }],
                    },
                  ],
                },
              ],
            },
          ],
        }),
      );
    for (const key of keys) {
      assert.ok(assertSame(bytesOf(key), `key ${key}`));
      const row = flatten(decodeExportTraceServiceRequestFast(bytesOf(key))).spans[0];
      assert.deepEqual(row?.SpanAttributes, { [key]: key });
      assert.equal(row?.SpanName, key);
    }
    // A key of one invalid byte decodes to U+FFFD, as long as the byte: it must still be counted invalid each time.
    const invalid = bytesOf('tool.ab');
    for (let round = 0; round < 3; round++) {
      // Every occurrence (name, key, value) in turn, then all of them.
      for (const nth of [0, 1, 2, -1]) {
        const copy = Buffer.from(invalid);
        let at = -1;
        for (let k = 0; k <= Math.max(nth, 2); k++) {
          at = copy.indexOf(Buffer.from('tool.ab'), at + 1);
          if (nth === -1 || k === nth) copy[at + 4] = 0xff;
        }
        assert.ok(assertSame(copy, `invalid string ${nth}, round ${round}`));
      }
    }
  });

  it('fails on exactly the same corrupted or truncated bytes, with the same error', () => {
    let decoded = 0;
    for (let seed = 1; seed <= 300; seed++) {
      const r = prng(seed * 7919);
      const bytes = Buffer.from(encodeExportTraceServiceRequest(randomRequest(r)));
      if (bytes.length === 0) continue;
      const copy = Buffer.from(bytes);
      for (let k = 0; k <= r.int(3); k++) copy[r.int(copy.length)] = r.int(256);
      if (assertSame(copy, `corrupted ${seed}`)) decoded++;
      assertSame(bytes.subarray(0, r.int(bytes.length)), `truncated ${seed}`);
    }
    assert.ok(decoded > 0, 'some corrupted payloads still decode (their rows were compared)');
  });
});
