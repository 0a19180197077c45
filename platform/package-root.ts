/**
 * Where tooltrail's own files are (build/, bin/, the services' home by default): the folder of its package.json,
 * found upwards from this module, so the same from the TypeScript sources and from the compiled dist/.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

function findPackageRoot(from: string): string {
  for (let dir = from; ; dir = dirname(dir)) {
    const manifest = join(dir, 'package.json');
    if (existsSync(manifest) && (JSON.parse(readFileSync(manifest, 'utf8')) as { name?: unknown }).name === 'tooltrail')
      return dir;
    if (dirname(dir) === dir) throw new Error(`no tooltrail package.json above ${from}`);
  }
}

export const PACKAGE_ROOT = findPackageRoot(dirname(fileURLToPath(import.meta.url)));

/** True when this code runs from the TypeScript sources (through tsx), false from the compiled dist/. */
export const FROM_SOURCES = import.meta.url.endsWith('.ts');
