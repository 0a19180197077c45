import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** A Kafka client library is used at the version it was tested with: another one is refused in one line at load. */
export class KafkaClientVersionError extends Error {
  override name = 'KafkaClientVersionError';
}

export function assertPinned(library: string, installed: string, pinned: string): void {
  if (installed !== pinned) {
    throw new KafkaClientVersionError(
      `${library} ${installed} is installed, tooltrail is tested with ${pinned} (package.json pins it): run npm ci`,
    );
  }
}

/**
 * The version of an installed package, read from its package.json beside the entry point Node resolves (packages
 * whose exports map hides package.json included).
 */
export function installedVersion(pkg: string, resolveEntry: (specifier: string) => string): string {
  let dir = dirname(fileURLToPath(resolveEntry(pkg)));
  for (;;) {
    const manifest = join(dir, 'package.json');
    if (existsSync(manifest)) {
      const m = JSON.parse(readFileSync(manifest, 'utf8')) as { name?: string; version?: string };
      if (m.name === pkg && m.version) return m.version;
    }
    const up = dirname(dir);
    if (up === dir) throw new Error(`${pkg}: no package.json found above its entry point`);
    dir = up;
  }
}
