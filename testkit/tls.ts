/**
 * Certificates made at test time with the machine's openssl (services/certificates.ts): a CA, a server certificate
 * for 127.0.0.1 and localhost signed by it, client certificates (subject CN and a SAN URI a test can map to a
 * tenant), and a second, unrelated CA a client must not trust. Nothing is committed; each run makes its own.
 */
import { readFileSync } from 'node:fs';
import { connect } from 'node:net';
import { createServer as createTlsServer } from 'node:tls';
import type { LocalCa, LocalCertificate } from '../services/certificates.ts';

export { makeCa, makeCertificate } from '../services/certificates.ts';
export type TestCa = LocalCa;
export type TestCertificate = LocalCertificate;

export interface TlsTerminator {
  port: number;
  close(): Promise<void>;
}

/**
 * A TLS endpoint on a free loopback port that forwards each connection's bytes to `targetPort`: HTTPS in front
 * of the local ClickHouse, whose engine (clickhouse-local) refuses an HTTPS listener ("supports only TCP and
 * HTTP listeners"). The client side is a real TLS handshake with the given certificate.
 */
export async function startTlsTerminator(
  certificate: TestCertificate,
  targetPort: number,
  options: { clientCaFile?: string } = {},
): Promise<TlsTerminator> {
  const open = new Set<{ destroy(): void }>();
  const server = createTlsServer(
    {
      cert: readFileSync(certificate.certFile),
      key: readFileSync(certificate.keyFile),
      ...(options.clientCaFile
        ? { ca: readFileSync(options.clientCaFile), requestCert: true, rejectUnauthorized: true }
        : {}),
    },
    (socket) => {
      const upstream = connect(targetPort, '127.0.0.1');
      socket.pipe(upstream).pipe(socket);
      open.add(socket).add(upstream);
      const end = () => {
        socket.destroy();
        upstream.destroy();
        open.delete(socket);
        open.delete(upstream);
      };
      socket.once('error', end).once('close', end);
      upstream.once('error', end).once('close', end);
    },
  );
  server.on('tlsClientError', () => {});
  await new Promise<void>((resolve, reject) => server.once('error', reject).listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    port,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        for (const s of open) s.destroy();
      }),
  };
}
