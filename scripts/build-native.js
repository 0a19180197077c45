#!/usr/bin/env node
// Builds the optional native row hasher (audit/native-core/row-hashes.c) into build/row-hashes.node: run by
// `npm install` (postinstall) and by hand after changing the C file. Node-API only; SHA-256 comes from the OpenSSL
// that Node itself exports, so nothing but a C compiler and Node's headers is needed. Without them it says so and
// exits 0: the digests are then written in JavaScript (same bytes, ~2x the CPU).
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, renameSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const source = join(root, 'audit/native-core/row-hashes.c');
const output = join(root, 'build/row-hashes.node');
const includes = [join(dirname(process.execPath), '../include/node'), '/usr/include/node', '/usr/local/include/node'];
const include = includes.find((dir) => existsSync(join(dir, 'node_api.h')) && existsSync(join(dir, 'openssl/evp.h')));
const cc = process.env.CC || 'cc';

if (!include) {
  console.warn(
    `build-native: no Node headers (node_api.h, openssl/evp.h) in ${includes.join(', ')}; digests in JavaScript`,
  );
  process.exit(0);
}
mkdirSync(dirname(output), { recursive: true });
// Built beside it, then renamed over it: a process that has the old one loaded keeps its mapping intact.
const temporary = `${output}.${process.pid}.tmp`;
const args = [
  '-O2',
  '-std=c11',
  '-Wall',
  '-Wextra',
  '-Werror',
  '-shared',
  '-fPIC',
  `-I${include}`,
  source,
  '-o',
  temporary,
];
try {
  execFileSync(cc, args, { stdio: 'inherit' });
  renameSync(temporary, output);
  console.log(`build-native: ${output.slice(root.length + 1)} (${cc}, ${include})`);
} catch (err) {
  rmSync(temporary, { force: true });
  console.warn(`build-native: ${cc} failed (${err.message}); digests in JavaScript`);
  process.exit(0);
}
