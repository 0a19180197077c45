/**
 * Certificates made at test time with the machine's openssl: a CA, a server certificate for 127.0.0.1 and
 * localhost signed by it, client certificates (subject CN and a SAN URI a test can map to a tenant), and a
 * second, unrelated CA a client must not trust. Nothing is committed; each run makes its own.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import { createServer as createTlsServer } from 'node:tls';

export interface TestCa {
  dir: string;
  caFile: string;
  caKeyFile: string;
}

export interface TestCertificate {
  certFile: string;
  keyFile: string;
}

function openssl(args: string[], cwd: string): void {
  execFileSync('openssl', args, { cwd, stdio: ['ignore', 'ignore', 'pipe'] });
}

/** A self-signed CA in `dir/<name>-ca.pem` (key beside it). */
export function makeCa(dir: string, name = 'test'): TestCa {
  mkdirSync(dir, { recursive: true });
  const caFile = join(dir, `${name}-ca.pem`);
  const caKeyFile = join(dir, `${name}-ca.key`);
  openssl(
    ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '2', '-subj', `/CN=tooltrail ${name} CA`]
      .concat(['-keyout', caKeyFile, '-out', caFile])
      .concat(['-addext', 'basicConstraints=critical,CA:TRUE', '-addext', 'keyUsage=critical,keyCertSign,cRLSign']),
    dir,
  );
  return { dir, caFile, caKeyFile };
}

/** A leaf certificate signed by `ca`, with an unencrypted PKCS#8 key (what Node and Kafka's PEM stores read). */
export function makeCertificate(
  ca: TestCa,
  name: string,
  options: { cn?: string; san?: string; usage?: 'server' | 'client' } = {},
): TestCertificate {
  const keyFile = join(ca.dir, `${name}.key`);
  const certFile = join(ca.dir, `${name}.pem`);
  const csr = join(ca.dir, `${name}.csr`);
  const ext = join(ca.dir, `${name}.ext`);
  const usage = options.usage ?? 'server';
  const san = options.san ?? (usage === 'server' ? 'IP:127.0.0.1,DNS:localhost' : undefined);
  writeFileSync(
    ext,
    [
      'basicConstraints=CA:FALSE',
      `extendedKeyUsage=${usage === 'server' ? 'serverAuth' : 'clientAuth'}`,
      ...(san ? [`subjectAltName=${san}`] : []),
    ].join('\n'),
  );
  openssl(
    ['req', '-newkey', 'rsa:2048', '-nodes', '-subj', `/CN=${options.cn ?? name}`, '-keyout', keyFile, '-out', csr],
    ca.dir,
  );
  openssl(
    ['x509', '-req', '-in', csr, '-CA', ca.caFile, '-CAkey', ca.caKeyFile, '-CAcreateserial', '-days', '2'].concat([
      '-extfile',
      ext,
      '-out',
      certFile,
    ]),
    ca.dir,
  );
  return { certFile, keyFile };
}

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
