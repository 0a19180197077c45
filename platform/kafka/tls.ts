import { readFileSync } from 'node:fs';
import type { ConnectionOptions } from 'node:tls';
import type { KafkaSecurity } from './security.ts';

/** Node's TLS options of the settings (both clients take them as they are); the files are read here, once per client. */
export function tlsOptionsOf(security: KafkaSecurity | undefined): ConnectionOptions | undefined {
  const tls = security?.tls;
  if (!tls?.enabled) return undefined;
  return {
    ...(tls.caFile ? { ca: [readFileSync(tls.caFile)] } : {}),
    ...(tls.certFile && tls.keyFile ? { cert: readFileSync(tls.certFile), key: readFileSync(tls.keyFile) } : {}),
  };
}
