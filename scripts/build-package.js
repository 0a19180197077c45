#!/usr/bin/env node
// Builds one of the repo's packages for publishing: `node scripts/build-package.js <package folder>` compiles the
// package's tsconfig.build.json with tsc (ESM JavaScript + .d.ts, `.ts` import specifiers rewritten to `.js`) into
// its dist/, after emptying it. The shared sources it imports (contract/) compile beside it, so the tarball needs
// nothing outside itself. Inside the repo, code keeps importing the .ts sources (tsx); dist/ is for the tarball.
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, resolve } from 'node:path';

const dir = resolve(process.argv[2] ?? process.cwd());
const project = join(dir, 'tsconfig.build.json');
if (!existsSync(project)) {
  console.error(`build-package: ${project} does not exist (each package names what it builds there)`);
  process.exit(2);
}
rmSync(join(dir, 'dist'), { recursive: true, force: true });
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
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
console.error(`build-package: built ${join(dir, 'dist')}`);
