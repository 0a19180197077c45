/** Shipped code reaches third-party libraries through their public API only (scripts/third-party-patches.ts). */
import assert from 'node:assert/strict';
import { resolve } from 'node:path';
import { describe, it } from 'node:test';
import { checkPatches, findPatches } from '../../../scripts/third-party-patches.ts';

const root = resolve(import.meta.dirname, '../../..');

describe('no patched internals of a third-party library in shipped code', () => {
  it('the tree as it is patches none', () => {
    assert.deepEqual(
      checkPatches(root).map((f) => `${f.file}:${f.line}: ${f.why}`),
      [],
    );
  });

  it('finds each kind of patch the kafkajs module had, and leaves public imports and our own code alone', () => {
    const planted = [
      "const Encoder = createRequire(import.meta.url)('kafkajs/src/protocol/encoder');",
      'Encoder.prototype.writeEncoderArray = function writeEncoderArray() {};',
      "RequestQueue.prototype['scheduleCheckPendingRequests'] = () => {};",
      'const cached = requireKafkajs.cache[path]; require.cache[path].exports = encodeRecord;',
      "import { Encoder } from '@platformatic/kafka/dist/protocol/writer.js';",
      "const m = await import('kafkajs/lib/index.js');",
    ].join('\n');
    assert.deepEqual(
      findPatches('platform/kafka/x.ts', planted).map((f) => `${f.line}: ${f.why}`),
      [
        "1: imports a package's internals (src/, dist/, lib/ or build/)",
        '2: assigns to a prototype',
        '3: assigns to a prototype',
        '4: uses require.cache',
        "5: imports a package's internals (src/, dist/, lib/ or build/)",
        "6: imports a package's internals (src/, dist/, lib/ or build/)",
      ],
    );
    const fine = [
      "import { Producer } from '@platformatic/kafka';",
      "import { ExportTraceServiceRequest } from '../otlp/dist/x.ts';",
      'if (x.prototype === y) return;',
      "const schema = await import('zod/v4');",
    ].join('\n');
    assert.deepEqual(findPatches('platform/kafka/y.ts', fine), []);
  });
});
