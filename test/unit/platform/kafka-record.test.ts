/**
 * The record encoder that replaces kafkajs' (platform/kafka/record.ts) must write the bytes kafkajs writes for every
 * record, and kafkajs must use it once the kafkajs client is loaded.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { createRequire } from 'node:module';
import { describe, it } from 'node:test';
import '../../../platform/kafka/kafkajs/client.ts';
import { encodeRecord, kafkajsEncodeRecord } from '../../../platform/kafka/kafkajs/record.ts';

const bytes = (e: { buf: Buffer; offset: number }) => e.buf.subarray(0, e.offset);

describe('the Kafka record encoder', () => {
  it('writes exactly kafkajs’ bytes for every record shape (2,000 records, sizes across varint boundaries)', () => {
    const sizes = [0, 1, 63, 64, 127, 128, 8191, 8192, 4_300, 70_000];
    for (let i = 0; i < 2_000; i++) {
      const args = {
        offsetDelta: i % 3 === 0 ? i : i * 1000,
        timestampDelta: i % 5 === 0 ? 0 : i * 7919,
        key: i % 11 === 0 ? 'ключ-€' : randomBytes(16).toString('hex'),
        value: randomBytes(sizes[i % sizes.length] as number),
        headers:
          i % 4 === 0
            ? {}
            : { 'tooltrail-tenant': i % 3 ? 'acme' : 'ténant', ...(i % 2 ? { b: Buffer.from([0, 1, 2]) } : {}) },
      };
      assert.deepEqual(bytes(encodeRecord(args)), bytes(kafkajsEncodeRecord(args)), `record ${i}`);
    }
  });

  it('leaves other shapes to kafkajs (Buffer keys, null keys, header arrays)', () => {
    for (const args of [
      { key: Buffer.from('k'), value: Buffer.from('v') },
      { key: null, value: Buffer.from('v') },
      { key: 'k', value: Buffer.from('v'), headers: { h: ['a', 'b'] } },
    ]) {
      assert.deepEqual(bytes(encodeRecord(args)), bytes(kafkajsEncodeRecord(args)));
    }
  });

  it('is the encoder kafkajs’ produce requests use', () => {
    const require = createRequire(import.meta.url);
    assert.equal(require('kafkajs/src/protocol/recordBatch/record/v0'), encodeRecord);
  });
});
