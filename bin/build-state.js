// Whether dist/ holds a build of the CLI at least as new as every TypeScript source it was built from: the stamp
// scripts/build-package.js writes last (dist/BUILT) against the newest .ts under the source folders that dist/
// mirrors. About 200 files stat'ed: a millisecond or two, against the ~1 s tsx spends compiling them.
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));

function newestSource(dir) {
  let newest = 0;
  let entries;
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return 0;
  }
  for (const e of entries) {
    if (e.name === 'node_modules' || e.name === 'dist') continue;
    const full = join(dir, e.name);
    if (e.isDirectory()) newest = Math.max(newest, newestSource(full));
    else if (e.name.endsWith('.ts')) newest = Math.max(newest, statSync(full).mtimeMs);
  }
  return newest;
}

/** { built: dist/ has a build, current: that build is not older than any source beside it }. */
export function builtCliIsCurrent() {
  let builtAt;
  try {
    builtAt = statSync(join(root, 'dist', 'BUILT')).mtimeMs;
  } catch {
    return { built: false, current: false };
  }
  for (const top of readdirSync(join(root, 'dist'))) {
    if (newestSource(join(root, top)) > builtAt) return { built: true, current: false };
  }
  return { built: true, current: true };
}
