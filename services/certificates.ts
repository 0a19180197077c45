/**
 * Certificates made with the machine's openssl: a CA, and leaf certificates signed by it (a server certificate for
 * 127.0.0.1 and localhost, or a client certificate with a subject CN and an optional SAN URI). The local SASL_SSL
 * listener (`services up --kafka-sasl-ssl`) and the tests (testkit/tls.ts) make theirs here.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export interface LocalCa {
  dir: string;
  caFile: string;
  caKeyFile: string;
}

export interface LocalCertificate {
  certFile: string;
  keyFile: string;
}

function openssl(args: string[], cwd: string): void {
  execFileSync('openssl', args, { cwd, stdio: ['ignore', 'ignore', 'pipe'] });
}

/** A self-signed CA in `dir/<name>-ca.pem` (key beside it), valid `days`. */
export function makeCa(dir: string, name = 'test', days = 2): LocalCa {
  mkdirSync(dir, { recursive: true });
  const caFile = join(dir, `${name}-ca.pem`);
  const caKeyFile = join(dir, `${name}-ca.key`);
  openssl(
    ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', String(days), '-subj', `/CN=tooltrail ${name} CA`]
      .concat(['-keyout', caKeyFile, '-out', caFile])
      .concat(['-addext', 'basicConstraints=critical,CA:TRUE', '-addext', 'keyUsage=critical,keyCertSign,cRLSign']),
    dir,
  );
  return { dir, caFile, caKeyFile };
}

/** A leaf certificate signed by `ca`, with an unencrypted PKCS#8 key (what Node and Kafka's PEM stores read). */
export function makeCertificate(
  ca: LocalCa,
  name: string,
  options: { cn?: string; san?: string; usage?: 'server' | 'client'; days?: number } = {},
): LocalCertificate {
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
    ['x509', '-req', '-in', csr, '-CA', ca.caFile, '-CAkey', ca.caKeyFile, '-CAcreateserial'].concat([
      '-days',
      String(options.days ?? 2),
      '-extfile',
      ext,
      '-out',
      certFile,
    ]),
    ca.dir,
  );
  return { certFile, keyFile };
}
