/**
 * What a connection is told when Node's HTTP parser refuses its bytes or a timeout fires before its request was read:
 * a google.rpc.Status (JSON: the content type is not known yet) naming the reason and the key that bounds it, where
 * Fastify's own handler says only "Client Error". The connection is then closed; the request's admission, if it had
 * one, is given back by the response's close (plugins/otlp-traces.ts).
 */
import type { Duplex } from 'node:stream';
import { RpcCode, rpcStatusToJson } from '../platform/otlp/index.ts';

export type ConnectionErrorReason = 'request_timeout' | 'malformed_request' | 'headers_too_large';

interface ClientError extends Error {
  code?: string;
}

export interface ClientErrorContext {
  headersTimeoutMs: number;
  requestTimeoutMs: number;
  count(reason: ConnectionErrorReason): void;
}

interface Answer {
  status: number;
  text: string;
  reason: ConnectionErrorReason;
  code: number;
  message: string;
}

function answer(err: ClientError, c: ClientErrorContext): Answer {
  if (err.code === 'ERR_HTTP_REQUEST_TIMEOUT') {
    const message =
      'request_timeout: the request did not arrive in time (its headers within http.headersTimeoutMs = ' +
      `${c.headersTimeoutMs} ms, all of it within http.requestTimeoutMs = ${c.requestTimeoutMs} ms)`;
    return {
      status: 408,
      text: 'Request Timeout',
      reason: 'request_timeout',
      code: RpcCode.DEADLINE_EXCEEDED,
      message,
    };
  }
  if (err.code === 'HPE_HEADER_OVERFLOW') {
    const message = 'headers_too_large: the request headers exceed the HTTP parser limit';
    const text = 'Request Header Fields Too Large';
    return { status: 431, text, reason: 'headers_too_large', code: RpcCode.INVALID_ARGUMENT, message };
  }
  const message = `malformed_request: the bytes are not an HTTP/1.1 request: ${err.code ?? 'error'}: ${err.message}`;
  return { status: 400, text: 'Bad Request', reason: 'malformed_request', code: RpcCode.INVALID_ARGUMENT, message };
}

/** Fastify's `clientErrorHandler` for the collector. */
export function collectorClientErrorHandler(c: ClientErrorContext): (err: ClientError, socket: Duplex) => void {
  return (err, socket) => {
    // A reset connection has nobody to tell.
    if (err.code === 'ECONNRESET' || socket.destroyed) return;
    const a = answer(err, c);
    c.count(a.reason);
    // A response already started on this connection cannot be followed by another status line.
    const current = (socket as Duplex & { _httpMessage?: { headersSent?: boolean } })._httpMessage;
    if (socket.writable && !current?.headersSent) {
      // A request pipelined before the bad bytes loses its answer with the connection: the client is told so.
      const unanswered =
        current && a.reason === 'malformed_request'
          ? '; the request before these bytes on this connection was not answered'
          : '';
      const body = JSON.stringify(rpcStatusToJson({ code: a.code, message: a.message + unanswered }));
      socket.write(
        `HTTP/1.1 ${a.status} ${a.text}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n` +
          `Connection: close\r\n\r\n${body}`,
      );
    }
    socket.destroy(err);
  };
}
