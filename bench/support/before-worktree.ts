/**
 * The "before" side of a bench that measures two commits in one run: a detached git worktree of the older commit,
 * sharing this checkout's node_modules (or the given one), removed when the bench ends.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The checkout the benches run from. */
export const REPO_ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

/** A worktree of `commit` in a fresh temporary folder named after `label`; returns its path. */
export function beforeWorktree(commit: string, label: string, nodeModules = join(REPO_ROOT, 'node_modules')): string {
  const dir = mkdtempSync(join(tmpdir(), `tooltrail-bench-${label}-before-`));
  execFileSync('git', ['-C', REPO_ROOT, 'worktree', 'add', '--detach', dir, commit], { stdio: 'ignore' });
  symlinkSync(nodeModules, join(dir, 'node_modules'));
  return dir;
}

/** Removes a worktree beforeWorktree made, even when git no longer knows it. */
export function removeWorktree(dir: string): void {
  try {
    execFileSync('git', ['-C', REPO_ROOT, 'worktree', 'remove', '--force', dir], { stdio: 'ignore' });
  } catch {}
  if (existsSync(dir)) rmSync(dir, { recursive: true, force: true });
}
