/**
 * HTTP/1.1 as a hostile client speaks it: raw bytes on one TCP connection, written in steps with pauses between
 * them, and every answer read back as the bytes the server sent (several responses when requests were pipelined).
 */
import { connect } from 'node:net';

export interface WireStep {
  /** Bytes (latin1 when a string) to write. */
  write?: string | Buffer;
  /** Milliseconds to wait after the write. */
  pauseMs?: number;
}

export interface WireOptions {
  /**
   * After the last step: `end` half-closes at once (the client is done), `response` half-closes once a whole response
   * has arrived (as an exporter waits for its answer), `hangup` destroys, `keep` waits for the server to close.
   */
  after: 'end' | 'response' | 'hangup' | 'keep';
  /** The connection is destroyed after this long whatever happens (bounds every case). */
  timeoutMs: number;
}

export interface WireResult {
  /** Everything the server sent, latin1. */
  received: string;
  /** The server closed the connection (false: the client hung up or the bound fired first). */
  closedByServer: boolean;
  /** The bound fired. */
  timedOut: boolean;
}

/** Runs one connection: the steps in order, then `after`; resolves when the connection is gone. */
export function exchange(port: number, steps: WireStep[], o: WireOptions): Promise<WireResult> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    let received = '';
    let clientDone = false;
    let timedOut = false;
    socket.setEncoding('latin1');
    let answered: () => void = () => {};
    socket.on('data', (d: string) => {
      received += d;
      if (wholeResponse(received)) answered();
    });
    socket.on('error', () => {});
    const bound = setTimeout(() => {
      timedOut = true;
      socket.destroy();
    }, o.timeoutMs);
    socket.once('close', () => {
      clearTimeout(bound);
      resolve({ received, closedByServer: !clientDone && !timedOut, timedOut });
    });
    socket.once('connect', async () => {
      for (const step of steps) {
        if (socket.destroyed) return;
        if (step.write !== undefined) {
          const bytes = typeof step.write === 'string' ? Buffer.from(step.write, 'latin1') : step.write;
          await new Promise<void>((r) => socket.write(bytes, () => r()));
        }
        if (step.pauseMs) await new Promise((r) => setTimeout(r, step.pauseMs));
      }
      if (socket.destroyed) return;
      if (o.after === 'end') socket.end();
      else if (o.after === 'response') {
        answered = () => socket.end();
        if (wholeResponse(received)) socket.end();
      } else if (o.after === 'hangup') {
        clientDone = true;
        socket.destroy();
      }
    });
  });
}

export interface WireResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** Splits what a server sent into its responses (each framed by its Content-Length; the last may run to the end). */
export function responsesOf(received: string): WireResponse[] {
  const out: WireResponse[] = [];
  let rest = received;
  while (rest.startsWith('HTTP/1.')) {
    const headEnd = rest.indexOf('\r\n\r\n');
    if (headEnd < 0) break;
    const [statusLine = '', ...lines] = rest.slice(0, headEnd).split('\r\n');
    const headers: Record<string, string> = {};
    for (const line of lines) {
      const colon = line.indexOf(':');
      if (colon > 0) headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
    }
    const length = headers['content-length'] === undefined ? rest.length : Number(headers['content-length']);
    const body = rest.slice(headEnd + 4, headEnd + 4 + length);
    out.push({ status: Number(statusLine.split(' ')[1]), headers, body });
    rest = rest.slice(headEnd + 4 + body.length);
  }
  return out;
}

/** Whether `received` starts with a response whose body (by its Content-Length) has arrived whole. */
function wholeResponse(received: string): boolean {
  const headEnd = received.indexOf('\r\n\r\n');
  if (!received.startsWith('HTTP/1.') || headEnd < 0) return false;
  const length = /\r\ncontent-length:\s*(\d+)/i.exec(received.slice(0, headEnd))?.[1];
  return length !== undefined && received.length - headEnd - 4 >= Number(length);
}

/** The request line and headers of a POST to /v1/traces. */
export function postHead(headers: Record<string, string | number>): string {
  const lines = Object.entries(headers).map(([k, v]) => `${k}: ${v}\r\n`);
  return `POST /v1/traces HTTP/1.1\r\nHost: collector\r\n${lines.join('')}\r\n`;
}
