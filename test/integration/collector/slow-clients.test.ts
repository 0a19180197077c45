/**
 * Slow and lying clients against a real collector over real sockets: the whole request must arrive within
 * `http.requestTimeoutMs` (then 408 and the slot comes back), one credential holds at most its share of the slots and
 * bytes, and bytes are admitted against the declared length before the body is read.
 */
import assert from 'node:assert/strict';
import { connect, type Socket } from 'node:net';
import { afterEach, describe, it } from 'node:test';
import { until } from '../../../testkit/wait.ts';
import { TOKEN_A, TOKEN_B } from '../../unit/collector/fixtures.ts';
import { inFlight, type RunningCollector, startCollector } from './harness.ts';

interface OpenRequest {
  socket: Socket;
  /** Everything the collector answered on this connection so far. */
  received: () => string;
  closed: Promise<void>;
}

/** Sends headers declaring `length` body bytes plus `bodyStart`, and keeps the connection open. */
function openRequest(c: RunningCollector, token: string, length: number, bodyStart = ''): Promise<OpenRequest> {
  return new Promise((resolve, reject) => {
    const socket = connect(Number(new URL(c.url).port), '127.0.0.1');
    let text = '';
    socket.setEncoding('latin1');
    socket.on('data', (d: string) => {
      text += d;
    });
    const closed = new Promise<void>((r) => socket.once('close', () => r()));
    socket.on('error', () => {});
    socket.once('connect', () => {
      const head =
        'POST /v1/traces HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n' +
        `Content-Length: ${length}\r\nAuthorization: Bearer ${token}\r\n\r\n`;
      socket.write(head + bodyStart, 'latin1', (err) =>
        err ? reject(err) : resolve({ socket, received: () => text, closed }),
      );
    });
  });
}

const exportAs = (c: RunningCollector, token: string) =>
  fetch(c.url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body: '{}',
  });

describe('collector against slow and lying clients', () => {
  let c: RunningCollector | undefined;
  let open: OpenRequest[] = [];
  afterEach(async () => {
    for (const o of open) o.socket.destroy();
    open = [];
    await c?.close();
  });

  it('a body that does not arrive within requestTimeoutMs is answered 408 and its slot comes back', async () => {
    c = await startCollector({
      sink: 'discard',
      http: { headersTimeoutMs: 500, requestTimeoutMs: 1_000 },
      limits: { maxConcurrentRequests: 8 },
    });
    const running = c;
    const slow = await openRequest(running, TOKEN_A, 100, '{"resourceSpans":');
    open.push(slow);
    await until('the slow request holds a slot', async () => (await inFlight(running)).requests === 1, {
      timeoutMs: 10000,
      everyMs: 25,
    });
    await slow.closed;
    assert.match(slow.received(), /^HTTP\/1\.1 408 /);
    await until('the slot came back', async () => (await inFlight(running)).requests === 0, {
      timeoutMs: 10000,
      everyMs: 25,
    });
    assert.deepEqual(await inFlight(running), { requests: 0, bytes: 0 });
  });

  it('one credential holding every slot it may have with slow bodies does not lock another tenant out', async () => {
    c = await startCollector({ sink: 'discard', limits: { maxConcurrentRequests: 8, tenantShare: 0.25 } });
    const running = c;
    for (let i = 0; i < 2; i++) open.push(await openRequest(running, TOKEN_A, 1_000, '{'));
    await until('tenant A holds its two slots', async () => (await inFlight(running)).requests === 2, {
      timeoutMs: 10000,
      everyMs: 25,
    });
    const third = await openRequest(running, TOKEN_A, 1_000, '{');
    open.push(third);
    await third.closed;
    assert.match(third.received(), /^HTTP\/1\.1 429 /);
    assert.match(third.received(), /already has 2 requests in flight/);
    const other = await exportAs(running, TOKEN_B);
    assert.equal(other.status, 200, 'tenant B is admitted while tenant A is at its share');
  });

  it('bytes are admitted against the declared length before the body is read', async () => {
    const MiB = 1024 * 1024;
    c = await startCollector({
      sink: 'discard',
      limits: { maxBodyBytes: MiB, maxWireBytes: MiB, maxInFlightBytes: 4 * MiB, tenantShare: 0.25 },
    });
    const running = c;
    open.push(await openRequest(running, TOKEN_A, 900_000));
    await until(
      'the declared length is reserved before any body byte',
      async () => (await inFlight(running)).bytes === 900_000,
      { timeoutMs: 10_000, everyMs: 25 },
    );
    const second = await openRequest(running, TOKEN_A, 900_000);
    open.push(second);
    await second.closed;
    assert.match(second.received(), /^HTTP\/1\.1 429 /);
    assert.match(second.received(), /this credential's share of request memory/);
    assert.equal((await exportAs(running, TOKEN_B)).status, 200, 'another tenant still has its share');
    for (const o of open) o.socket.destroy();
    await until('every slot came back', async () => (await inFlight(running)).requests === 0, {
      timeoutMs: 10000,
      everyMs: 25,
    });
    assert.deepEqual(await inFlight(running), { requests: 0, bytes: 0 });
  });
});
