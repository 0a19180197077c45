/**
 * The OTLP reference the unit tests read (testkit/reference/otlp-proto-trace.json: protobufjs' descriptor of
 * OpenTelemetry's trace .proto files) is what Maven Central's jar yields today: the same source, the same
 * descriptor, and the same decoding, refusals included, on intact and corrupted requests. Maven downloads the jar
 * once into the services' cache.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { encodeExportTraceServiceRequest } from '../../../platform/otlp/index.ts';
import {
  readReferenceFile,
  referenceFromJar,
  referenceFromProtoText,
  referenceOf,
} from '../../../testkit/otlp-reference.ts';
import { plainRequest, prng, randomRequest } from '../../unit/ingest/otlp-payloads.ts';

test('the checked-in OTLP reference is the descriptor the opentelemetry-proto jar compiles to, from the same files', async () => {
  const fromJar = await referenceFromJar();
  const checkedIn = readReferenceFile();
  assert.deepEqual(checkedIn.source, fromJar.source);
  assert.equal(checkedIn.descriptorSha256, fromJar.descriptorSha256);
  // As JSON: protobufjs builds enum values on null-prototype objects.
  assert.deepEqual(checkedIn.descriptor, JSON.parse(JSON.stringify(fromJar.descriptor)));
});

test('the checked-in OTLP reference decodes and refuses exactly as the jar compiled from its .proto text does', async () => {
  const fromText = await referenceFromProtoText();
  const checkedIn = referenceOf(readReferenceFile().descriptor);
  const outcome = (decode: (b: Uint8Array) => unknown, bytes: Uint8Array) => {
    try {
      return JSON.stringify(decode(bytes), (_, v) => (typeof v === 'bigint' ? v.toString() : v));
    } catch (err) {
      return `refused: ${(err as Error).message}`;
    }
  };
  let refused = 0;
  for (let seed = 1; seed <= 300; seed++) {
    const r = prng(seed);
    const request = seed % 2 === 0 ? randomRequest(r) : plainRequest(r);
    const bytes = Buffer.from(encodeExportTraceServiceRequest(request));
    const bad = Buffer.from(bytes);
    if (bad.length > 0) bad[r.int(bad.length)] = r.int(256);
    for (const b of [bytes, bad]) {
      const ours = outcome((x) => checkedIn.canonical(checkedIn.decodeRequest(x)), b);
      assert.equal(
        ours,
        outcome((x) => fromText.canonical(fromText.decodeRequest(x)), b),
        `seed ${seed}`,
      );
      if (ours.startsWith('refused')) refused++;
    }
  }
  assert.ok(refused > 10, `corrupted requests refused: ${refused}`);
});
