/**
 * The in-flight budget bounds decoded memory, not only the bytes received: a request reserves its decoded form
 * (limits.decodeExpansion per body byte) before decoding, holds it until the response, and gives it back then.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { decodedReservation } from '../../../collector/config.ts';
import { CollectorMetrics } from '../../../collector/metrics.ts';
import { buildCollectorServer } from '../../../collector/server.ts';
import { protobufBody, request, span } from '../../../testkit/otlp-requests.ts';
import { untilTurn } from '../../../testkit/wait.ts';
import { RecordingSink, TOKEN_A, TOKEN_B, testConfig } from './fixtures.ts';

const body = protobufBody(request(Array.from({ length: 40 }, () => span())));
const b = body.length;

function post(app: Awaited<ReturnType<typeof buildCollectorServer>>, token = TOKEN_A) {
  return app.inject({
    method: 'POST',
    url: '/v1/traces',
    payload: body,
    headers: { 'content-type': 'application/x-protobuf', authorization: `Bearer ${token}` },
  });
}

async function inFlightBytes(metrics: CollectorMetrics): Promise<number> {
  const text = await metrics.render();
  return Number(/^tooltrail_collector_in_flight_bytes (\d+)/m.exec(text)?.[1] ?? Number.NaN);
}

describe('decoded requests count against the in-flight budget', () => {
  it('a request whose body fits but whose decoded form does not is 429, and is served once the budget is back', async () => {
    const sink = new RecordingSink();
    sink.behaviour = 'hang';
    // Two bodies fit the budget as received (2b <= 4b); with their decoded forms (3b each) only one does.
    const limits = { maxBodyBytes: b, maxWireBytes: b, maxInFlightBytes: 4 * b, tenantShare: 1, decodeExpansion: 2 };
    const metrics = new CollectorMetrics({ tenantLabels: false });
    const app = await buildCollectorServer({ config: testConfig({ limits }), sink, metrics });
    try {
      const first = post(app);
      await untilTurn('1 request(s) wait in the sink', () => sink.waiting === 1);
      assert.equal(await inFlightBytes(metrics), 3 * b, 'the body and its decoded form are held while the sink writes');
      const second = await post(app, TOKEN_B);
      assert.equal(second.statusCode, 429);
      assert.match(second.body, /request memory is in use \(decoding this request needs \d+ bytes more\)/);
      sink.behaviour = 'ok';
      sink.release();
      assert.equal((await first).statusCode, 200);
      assert.equal(await inFlightBytes(metrics), 0, 'every reserved byte came back');
      assert.equal((await post(app, TOKEN_B)).statusCode, 200, 'served once the first was done');
    } finally {
      sink.behaviour = 'ok';
      sink.release();
      await app.close();
    }
  });

  it('with decodeExpansion 0 only the body is counted (the measured baseline of the bench)', async () => {
    const sink = new RecordingSink();
    sink.behaviour = 'hang';
    const limits = { maxBodyBytes: b, maxWireBytes: b, maxInFlightBytes: 4 * b, tenantShare: 1, decodeExpansion: 0 };
    const app = await buildCollectorServer({ config: testConfig({ limits }), sink });
    try {
      const first = post(app);
      await untilTurn('1 request(s) wait in the sink', () => sink.waiting === 1);
      const second = post(app, TOKEN_B);
      await untilTurn('2 request(s) wait in the sink', () => sink.waiting === 2);
      sink.release();
      assert.deepEqual([(await first).statusCode, (await second).statusCode], [200, 200]);
    } finally {
      sink.behaviour = 'ok';
      sink.release();
      await app.close();
    }
  });

  it("the reservation is capped so that a lone largest request still fits its tenant's share", () => {
    const limits = testConfig({ limits: { maxBodyBytes: 1_000, maxInFlightBytes: 12_000, decodeExpansion: 5 } }).limits;
    assert.equal(decodedReservation(1_000, limits), 2_000, 'a quarter of 12000, minus the body');
    const roomy = testConfig({ limits: { maxBodyBytes: 1_000, maxInFlightBytes: 100_000, decodeExpansion: 5 } }).limits;
    assert.equal(decodedReservation(1_000, roomy), 5_000);
  });
});
