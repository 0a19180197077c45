/** Whether a host to bind names this machine's loopback interface: the only place an unauthenticated server listens. */
import { isIP } from 'node:net';

export function isLoopback(host: string): boolean {
  if (host === 'localhost' || host === '::1' || host === '[::1]') return true;
  return isIP(host) === 4 && host.startsWith('127.');
}
