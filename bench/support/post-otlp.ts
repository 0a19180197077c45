/** One OTLP/HTTP protobuf POST to a local collector, for the load generators of the benches: resolves to the status. */
import { type Agent, request as httpRequest } from 'node:http';

export function postOtlp(agent: Agent, port: number, body: Buffer, token?: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      {
        agent,
        host: '127.0.0.1',
        port,
        path: '/v1/traces',
        method: 'POST',
        headers: {
          'content-type': 'application/x-protobuf',
          'content-length': body.length,
          ...(token ? { authorization: `Bearer ${token}` } : {}),
        },
      },
      (res) => {
        res.resume();
        res.once('end', () => resolve(res.statusCode ?? 0));
      },
    );
    req.once('error', reject);
    req.end(body);
  });
}
