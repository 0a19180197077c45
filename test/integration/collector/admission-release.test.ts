/**
 * Admission slots and reserved bytes come back on every path a request can end by: a parser error on the same
 * connection, a client that hangs up mid-body, a timeout. A real collector over real sockets.
 */
import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { until } from '../../../testkit/wait.ts';
import { TOKEN_A, TOKEN_B } from '../../unit/collector/fixtures.ts';
import { inFlight, type RunningCollector, startCollector } from './harness.ts';

/** Writes `bytes` on a fresh connection and resolves once the collector closed it (or after the reply). */
function sendRaw(port: number, bytes: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let received = '';
    socket.setEncoding('latin1');
    socket.on('data', (d: string) => {
      received += d;
    });
    socket.on('error', () => resolve(received));
    socket.on('close', () => resolve(received));
    socket.on('connect', () => {
      socket.write(bytes, 'latin1', (err) => (err ? reject(err) : socket.end()));
    });
  });
}

function portOf(c: RunningCollector): number {
  return Number(new URL(c.url).port);
}

const exportOk = (c: RunningCollector, token: string) =>
  fetch(c.url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body: '{}',
  });

describe('collector admission: slots are released on every path', () => {
  // A fresh collector per rule, so one rule's leak cannot fail another's.
  let c: RunningCollector;
  beforeEach(async () => {
    c = await startCollector({ sink: 'discard', limits: { maxConcurrentRequests: 8 } });
  });
  afterEach(() => c.close());

  it('a request followed by bytes the HTTP parser rejects gives its slot and bytes back', async () => {
    const pipelined =
      'POST /v1/traces HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 2\r\n' +
      `Authorization: Bearer ${TOKEN_A}\r\n\r\n{}garbage\r\n\r\n`;
    // Three times the slot count: had one leaked per connection, every slot would be gone.
    for (let i = 0; i < 24; i++) await sendRaw(portOf(c), pipelined);
    await until('in_flight_requests back to 0', async () => (await inFlight(c)).requests === 0, {
      timeoutMs: 5000,
      everyMs: 25,
    });
    assert.deepEqual(await inFlight(c), { requests: 0, bytes: 0 });
    const res = await exportOk(c, TOKEN_B);
    assert.equal(res.status, 200, 'another tenant is still admitted');
  });

  it('a client that hangs up in the middle of its body gives its slot back', async () => {
    const partial =
      'POST /v1/traces HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n' +
      `Authorization: Bearer ${TOKEN_A}\r\n\r\n{"resourceSpans":[`;
    for (let i = 0; i < 24; i++) await sendRaw(portOf(c), partial);
    await until('in_flight_requests back to 0', async () => (await inFlight(c)).requests === 0, {
      timeoutMs: 5000,
      everyMs: 25,
    });
    assert.deepEqual(await inFlight(c), { requests: 0, bytes: 0 });
    assert.equal((await exportOk(c, TOKEN_B)).status, 200);
  });
});
