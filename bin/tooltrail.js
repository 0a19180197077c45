#!/usr/bin/env node
// The `tooltrail` command. First the Node version, in syntax any Node parses, before loading anything a too-old one
// would fail on. Then the compiled CLI in dist/ (npm ci builds it); in a checkout whose sources changed since that
// build, the sources themselves through tsx (a dev dependency), so that a test or a developer never runs stale code.
const [major, minor] = process.versions.node.split('.').map(Number);
if (major < 22 || (major === 22 && minor < 22)) {
  console.error(`tooltrail: needs Node.js 22.22 or newer (24 and 26 are the LTS lines); this is ${process.version}`);
  process.exit(1);
}

const { builtCliIsCurrent } = await import('./build-state.js');
const state = builtCliIsCurrent();
if (state.current) {
  await import('../dist/cli/main.js');
} else {
  let register;
  try {
    ({ register } = await import('tsx/esm/api'));
  } catch {
    // A production install has no tsx: the build, even older than the sources beside it, is what there is.
    if (!state.built) {
      console.error('tooltrail: the CLI is not built and tsx is not installed: run `npm ci` (or `npm run build`)');
      process.exit(1);
    }
  }
  if (register) {
    register();
    await import('../cli/main.ts');
  } else {
    await import('../dist/cli/main.js');
  }
}
