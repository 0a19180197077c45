/**
 * The two OTLP encodings are held to one rule set at a real collector: a JSON body that spells one field both ways
 * (`resourceSpans` and `resource_spans`) is refused instead of silently losing one, and attribute values nest to
 * the same depth in JSON and protobuf, whether the nesting is arrays or key-value lists.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { type AnyValue, decodeExportTraceServiceResponse, MAX_ANY_VALUE_DEPTH } from '../../../platform/otlp/index.ts';
import { attr, protobufBody, request, span, str } from '../../../testkit/otlp-requests.ts';
import { TOKEN_A } from '../../unit/collector/fixtures.ts';
import { body, type RunningCollector, startCollector } from './harness.ts';

type Shape = 'arrayValue' | 'kvlistValue';

/** A value `levels` deep as the collector counts it (a scalar is 1; each array or list adds one). */
function nested(levels: number, shape: Shape): AnyValue {
  if (levels <= 1) return str('leaf');
  const inner = nested(levels - 1, shape);
  return shape === 'arrayValue'
    ? { arrayValue: { values: [inner] } }
    : { kvlistValue: { values: [{ key: 'k', value: inner }] } };
}

/** The OTLP/JSON form of `nested` (the same structure, lowerCamelCase). */
function nestedJson(levels: number, shape: Shape): unknown {
  if (levels <= 1) return { stringValue: 'leaf' };
  const inner = nestedJson(levels - 1, shape);
  return shape === 'arrayValue'
    ? { arrayValue: { values: [inner] } }
    : { kvlistValue: { values: [{ key: 'k', value: inner }] } };
}

function jsonSpan(attributes: unknown[] = []): unknown {
  return {
    traceId: randomBytes(16).toString('hex'),
    spanId: randomBytes(8).toString('hex'),
    name: 'json-span',
    kind: 1,
    startTimeUnixNano: '1700000000000000000',
    endTimeUnixNano: '1700000000000000500',
    attributes,
  };
}

const jsonRequest = (spans: unknown[]) => ({ resourceSpans: [{ resource: {}, scopeSpans: [{ scope: {}, spans }] }] });

interface Answer {
  status: number;
  rejected: number;
  text: string;
}

describe('OTLP/JSON and OTLP/protobuf at the collector: one rule set', () => {
  let c: RunningCollector;
  before(async () => {
    c = await startCollector({ sink: 'discard' });
  });
  after(() => c.close());

  const post = async (payload: string | Buffer, type: string): Promise<Answer> => {
    const res = await fetch(c.url, {
      method: 'POST',
      headers: { 'content-type': type, authorization: `Bearer ${TOKEN_A}`, accept: 'application/json' },
      body: body(payload),
    });
    const bytes = Buffer.from(await res.arrayBuffer());
    const text = bytes.toString('utf8');
    let rejected = 0;
    if (type === 'application/json' && res.status === 200) {
      rejected = Number(
        (JSON.parse(text) as { partialSuccess?: { rejectedSpans?: string } }).partialSuccess?.rejectedSpans ?? 0,
      );
    } else if (res.status === 200 && bytes.length > 0) {
      rejected = Number(decodeExportTraceServiceResponse(bytes).partialSuccess?.rejectedSpans ?? 0);
    }
    return { status: res.status, rejected, text };
  };

  it('refuses a JSON body holding both resourceSpans and resource_spans (400), naming both', async () => {
    const both = { ...jsonRequest([jsonSpan()]), resource_spans: [{ scope_spans: [{ spans: [jsonSpan()] }] }] };
    const answer = await post(JSON.stringify(both), 'application/json');
    assert.equal(answer.status, 400);
    assert.match(answer.text, /resourceSpans.*resource_spans/);
  });

  it('refuses a span spelling one field both ways instead of keeping one of them', async () => {
    const s = { ...(jsonSpan() as Record<string, unknown>), end_time_unix_nano: '1700000000000000900' };
    const answer = await post(JSON.stringify(jsonRequest([s])), 'application/json');
    assert.equal(answer.status, 200);
    assert.equal(answer.rejected, 1);
  });

  for (const shape of ['arrayValue', 'kvlistValue'] as const) {
    for (const levels of [MAX_ANY_VALUE_DEPTH, MAX_ANY_VALUE_DEPTH + 1]) {
      const verdict = levels > MAX_ANY_VALUE_DEPTH ? 'rejected' : 'accepted';
      it(`a ${shape} value ${levels} levels deep is ${verdict} in both JSON and protobuf`, async () => {
        const json = await post(
          JSON.stringify(jsonRequest([jsonSpan([{ key: 'deep', value: nestedJson(levels, shape) }])])),
          'application/json',
        );
        const proto = await post(
          protobufBody(request([span({ attributes: [attr('deep', nested(levels, shape))] })])),
          'application/x-protobuf',
        );
        const expected = levels > MAX_ANY_VALUE_DEPTH ? 1 : 0;
        assert.deepEqual({ status: json.status, rejected: json.rejected }, { status: 200, rejected: expected }, 'JSON');
        assert.deepEqual(
          { status: proto.status, rejected: proto.rejected },
          { status: 200, rejected: expected },
          'protobuf',
        );
      });
    }
  }
});
