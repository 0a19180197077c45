/**
 * The optional native row hasher (row-hashes.c, built by scripts/build-native.js on `npm install` into build/).
 * `undefined` when it is not built or `TOOLTRAIL_NATIVE_DIGESTS=0`: native-entries.ts then writes the same bytes in
 * JavaScript, and log/hashes.ts hashes the tree with node:crypto. Both are checked against canonical.ts by
 * test/unit/audit/native-entries.test.ts, the tree hashes by test/unit/audit/tiles.test.ts.
 */
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { PACKAGE_ROOT } from '../../platform/package-root.ts';

export interface NativeRowHasher {
  /**
   * Hashes `rows` rows of a Native block: `columns` holds (layout, a, b, c, d, stop, stop2) per canonical column
   * (native-block.ts `descriptorsOf`; non-zero when a string cursor does not stop at its part's end), `prefix` the
   * table line, `start`/`end` the start_time/end_time columns (DURATION). Writes each row's SHA-256 (32 bytes) into
   * `out`.
   * Returns 0, or non-zero when JavaScript must do the block (a non-ASCII map key, or a malformed block).
   * `textOnly`: write each row's text and hash nothing (the benchmark times the two apart).
   */
  hashRows(
    body: Buffer,
    columns: Float64Array,
    rows: number,
    prefix: Buffer,
    start: number,
    end: number,
    out: Buffer,
    textOnly?: boolean,
  ): number;
  /** SHA-256(0x00 || entry) of each 32-byte entry into `out` (RFC 6962 leaves); 0, or non-zero on bad sizes. */
  leafHashes(entries: Buffer, out: Buffer): number;
  /** SHA-256(0x01 || pair) of each 64-byte pair into `out`, which may be `pairs` (RFC 6962 nodes). */
  nodeHashes(pairs: Buffer, out: Buffer): number;
  /** The position after `count` Native strings from `at`, or -1 when they run past the end of `body`. */
  skipStrings(body: Buffer, at: number, count: number): number;
}

export const NATIVE_ADDON_PATH = join(PACKAGE_ROOT, 'build/row-hashes.node');
export const NATIVE_SOURCE_PATH = fileURLToPath(new URL('row-hashes.c', import.meta.url));

function load(): NativeRowHasher | undefined {
  if (process.env.TOOLTRAIL_NATIVE_DIGESTS === '0' || !existsSync(NATIVE_ADDON_PATH)) return undefined;
  const addon: unknown = createRequire(import.meta.url)(NATIVE_ADDON_PATH);
  for (const name of ['hashRows', 'leafHashes', 'nodeHashes', 'skipStrings'] as const)
    if (typeof (addon as Partial<NativeRowHasher>)[name] !== 'function')
      throw new Error(`${NATIVE_ADDON_PATH} has no ${name}: rebuild it (node scripts/build-native.js)`);
  return addon as NativeRowHasher;
}

export const nativeRowHasher: NativeRowHasher | undefined = load();
