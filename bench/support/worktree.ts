/** A detached git worktree of an earlier commit, for benches that time "before" against this checkout. */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface Worktree {
  dir: string;
  /** The commit's short hash. */
  commit: string;
  remove(): void;
}

/**
 * Checks `commit` of the repository at `root` out into a temporary folder whose node_modules is `nodeModules`, with
 * its native addon built.
 */
export function beforeWorktree(root: string, commit: string, nodeModules: string): Worktree {
  const dir = mkdtempSync(join(tmpdir(), 'tooltrail-bench-before-'));
  execFileSync('git', ['-C', root, 'worktree', 'add', '--detach', dir, commit], { stdio: 'ignore' });
  symlinkSync(nodeModules, join(dir, 'node_modules'));
  // The native row hasher is built per checkout (build/, not node_modules): without it "before" would hash in JS.
  if (existsSync(join(dir, 'scripts', 'build-native.js'))) {
    execFileSync(process.execPath, ['scripts/build-native.js'], { cwd: dir, stdio: 'ignore' });
  }
  const short = execFileSync('git', ['-C', dir, 'rev-parse', '--short', 'HEAD'], { encoding: 'utf8' }).trim();
  return {
    dir,
    commit: short,
    remove() {
      try {
        execFileSync('git', ['-C', root, 'worktree', 'remove', '--force', dir], { stdio: 'ignore' });
      } catch {}
      if (existsSync(dir)) rmSync(dir, { recursive: true, force: true });
    },
  };
}
