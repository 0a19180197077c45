import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DLQ_HEADERS, REPLAY_HEADER, rejectedSpansLetters, undecodableLetter } from '../../../ingest/dead-letter.ts';
import { flatten } from '../../../ingest/flatten.ts';
import type { BatchMessage } from '../../../platform/kafka/index.ts';
import { decodeExportTraceServiceRequest } from '../../../platform/otlp/index.ts';
import { stampTenant, syntheticMessage } from '../../../testkit/ingest.ts';

function batchMessage(value: Buffer, headers: BatchMessage['headers'] = {}): BatchMessage {
  return {
    topic: 'otlp_spans',
    partition: 2,
    offset: '41',
    timestamp: '0',
    key: null,
    value,
    size: value.length,
    headers,
  };
}

describe('dead letters', () => {
  it('gives each reason of one message its own letter, holding only the spans rejected for it', () => {
    const noTenant = decodeExportTraceServiceRequest(syntheticMessage({ tenant: '', toolSpans: 2, seed: 1 }));
    const badTenant = stampTenant(
      decodeExportTraceServiceRequest(syntheticMessage({ tenant: 'x', toolSpans: 1, seed: 2 })),
      'acme:prod',
    );
    const request = { resourceSpans: [...noTenant.resourceSpans, ...badTenant.resourceSpans] };
    const flat = flatten(request);
    const letters = rejectedSpansLetters(batchMessage(Buffer.alloc(0)), request, flat.rejected);
    assert.deepEqual(
      letters.map((l) => l.headers?.[DLQ_HEADERS.REASON]),
      ['missing_tenant', 'invalid_tenant'],
    );
    const spans = (b: Buffer) =>
      decodeExportTraceServiceRequest(b).resourceSpans.flatMap((r) => r.scopeSpans.flatMap((s) => s.spans)).length;
    assert.equal(spans(letters[0]!.value), 3, 'two tool spans and their parent');
    assert.equal(spans(letters[1]!.value), 2);
    assert.match(String(letters[0]!.headers?.[DLQ_HEADERS.ERROR]), /^missing_tenant: 3 span\(s\), .*default tenant/);
    for (const l of letters) {
      assert.equal(l.key, 'otlp_spans:2:41');
      assert.equal(l.headers?.[DLQ_HEADERS.SOURCE_PARTITION], '2');
      assert.equal(l.headers?.[DLQ_HEADERS.SOURCE_OFFSET], '41');
    }
  });

  it('names the letter a replayed message came from when it is dead-lettered again', () => {
    const m = batchMessage(Buffer.from('junk'), { [REPLAY_HEADER]: 'otlp_spans_dlq:0:7' });
    const letter = undecodableLetter(m, 'invalid wire type');
    assert.equal(letter.headers?.[DLQ_HEADERS.REPLAY_OF], 'otlp_spans_dlq:0:7');
    assert.match(String(letter.headers?.[DLQ_HEADERS.ERROR]), /again, replayed from otlp_spans_dlq:0:7/);
    assert.equal(undecodableLetter(batchMessage(Buffer.from('junk')), 'x').headers?.[DLQ_HEADERS.REPLAY_OF], undefined);
  });
});
