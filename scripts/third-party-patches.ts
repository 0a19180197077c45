/**
 * Shipped code uses third-party libraries through their public API only (issue 36): no assignment to a prototype
 * (a library's methods swapped at run time), no `require.cache` (a module swapped before it loads), no deep import
 * of a package's `src/`, `dist/`, `lib/` or `build/` files (internals that a patch release may rename, turning a
 * patch into a silent no-op). `npm run check:patches` lists what breaks it; test/unit/foundation holds it.
 */
import { readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { SHARED, STAGES, sourceFiles } from './import-rules.ts';

/** The folders whose code ships (dist/ and the image); tests, tools and scripts may reach further. */
export const SHIPPED = [...SHARED, 'services', 'cli', ...STAGES] as const;

export interface Finding {
  file: string;
  line: number;
  why: string;
}

const RULES: { pattern: RegExp; why: string }[] = [
  { pattern: /\.prototype(\.[\w$]+|\[[^\]]+\])\s*=(?!=)/, why: 'assigns to a prototype' },
  { pattern: /Object\.(defineProperty|assign)\(\s*[\w$.]+\.prototype\b/, why: 'redefines a prototype' },
  { pattern: /\b\w*[rR]equire\w*\.cache\b/, why: 'uses require.cache' },
  {
    // A bare specifier into a package's files, wherever it is written (an import, a require, a constant).
    pattern: /['"](?:@[\w.-]+\/)?[\w.-]+\/(?:src|dist|lib|build)\/[^'"]*['"]/,
    why: "imports a package's internals (src/, dist/, lib/ or build/)",
  },
];

/** The lines of one source file that break the rule. */
export function findPatches(file: string, source: string): Finding[] {
  const out: Finding[] = [];
  source.split('\n').forEach((text, i) => {
    for (const r of RULES) if (r.pattern.test(text)) out.push({ file, line: i + 1, why: r.why });
  });
  return out;
}

/** Every finding in the shipped folders under `root`. */
export function checkPatches(root: string, files = sourceFiles(root)): Finding[] {
  const shipped = files.filter((f) => (SHIPPED as readonly string[]).includes(f.split('/')[0] ?? ''));
  return shipped.flatMap((f) => findPatches(f, readFileSync(join(root, f), 'utf8')));
}

if (process.argv[1] && relative(process.argv[1], new URL(import.meta.url).pathname) === '') {
  const root = process.argv[2] ?? join(dirname(new URL(import.meta.url).pathname), '..');
  const findings = checkPatches(root);
  for (const f of findings) console.log(`${f.file}:${f.line}: ${f.why}`);
  console.log(`${findings.length} patch(es) of third-party internals in shipped code`);
  process.exitCode = findings.length ? 1 : 0;
}
