#!/usr/bin/env node
// Builds the repo's JavaScript: `node scripts/build-package.js <folder> [--assets]` compiles the folder's
// tsconfig.build.json with tsc (ESM JavaScript, + .d.ts where it asks, `.ts` import specifiers rewritten to `.js`)
// into its dist/, after emptying it. Two builds use it: the instrumentation package for publishing (its shared
// sources, contract/, compile beside it, so the tarball needs nothing outside itself) and, from the repo root with
// --assets, the tooltrail CLI that bin/tooltrail.js and the image run (npm ci builds it: `prepare`). --assets copies
// the files the code reads beside itself (SQL, the Kafka pom, the ClickHouse launcher, ...) into the same places
// under dist/. Tests and development run the .ts sources through tsx.
import { execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, relative, resolve } from 'node:path';

const args = process.argv.slice(2);
const dir = resolve(args.find((a) => !a.startsWith('--')) ?? process.cwd());
const withAssets = args.includes('--assets');
const project = join(dir, 'tsconfig.build.json');
if (!existsSync(project)) {
  console.error(`build-package: ${project} does not exist (each package names what it builds there)`);
  process.exit(2);
}
rmSync(join(dir, 'dist'), { recursive: true, force: true });
let tsc;
try {
  tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
} catch {
  console.error('build-package: typescript is not installed (a production install? build where dev dependencies are)');
  process.exit(1);
}
try {
  execFileSync(process.execPath, [tsc, '-p', project], { stdio: 'inherit' });
} catch {
  console.error(`build-package: tsc -p ${project} failed`);
  process.exit(1);
}
// tsc rewrites `.ts` specifiers in the JavaScript only; the declarations get the same `.js` ones, so that any
// TypeScript resolution (not only one that maps `.ts` to `.d.ts`) finds them.
const relativeTs = /((?:from|import)\s*\(?\s*['"])(\.\.?\/[^'"]+)\.ts(['"])/g;
for (const entry of readdirSync(join(dir, 'dist'), { recursive: true, withFileTypes: true })) {
  if (!entry.isFile() || !entry.name.endsWith('.d.ts')) continue;
  const file = join(entry.parentPath, entry.name);
  const text = readFileSync(file, 'utf8');
  const fixed = text.replace(relativeTs, '$1$2.js$3');
  if (fixed !== text) writeFileSync(file, fixed);
}
// What sits beside the compiled sources and is not code they compile: read at run time relative to the module.
const NOT_ASSETS = /\.(ts|md)$|^tsconfig.*\.json$|^package(-lock)?\.json$/;
function copyAssets(from, to) {
  for (const entry of readdirSync(from, { withFileTypes: true })) {
    if (entry.name === 'node_modules' || entry.name === 'dist' || entry.name.startsWith('.')) continue;
    const source = join(from, entry.name);
    if (entry.isDirectory()) copyAssets(source, join(to, entry.name));
    else if (entry.isFile() && !NOT_ASSETS.test(entry.name)) {
      mkdirSync(to, { recursive: true });
      copyFileSync(source, join(to, entry.name));
    }
  }
}
if (withAssets) {
  // Every top folder tsc emitted into (rootDir is the folder built) gets its source folder's assets.
  for (const top of readdirSync(join(dir, 'dist'))) copyAssets(join(dir, top), join(dir, 'dist', top));
  // Written last: bin/build-state.js runs this build only while no source is newer than this stamp.
  writeFileSync(join(dir, 'dist', 'BUILT'), `${new Date().toISOString()}\n`);
}
console.error(`build-package: built ${relative(process.cwd(), join(dir, 'dist')) || 'dist'}`);
