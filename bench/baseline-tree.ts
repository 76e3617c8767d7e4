// The tree of another commit, for `npm run bench -- --vs=<ref>`: a detached git worktree under
// /tmp/cak-bench-<sha> with its own `npm ci`, made once and reused by later runs. Its bench
// server is its own bench/server.ts, run by its own tsx, importing its own src/.
import { execFileSync } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import path from 'node:path';

/** Marks a tree whose `npm ci` finished: a tree without it (an interrupted run) is made again. */
const READY = '.cak-bench-ready';

const git = (...args: string[]) => execFileSync('git', args, { encoding: 'utf8' }).trim();

/** The directory holding `ref`'s tree with its dependencies installed; prepared if missing. */
export function baselineTree(ref: string): { sha: string; dir: string } {
  const sha = git('rev-parse', '--verify', `${ref}^{commit}`);
  const dir = path.join('/tmp', `cak-bench-${sha.slice(0, 12)}`);
  if (existsSync(path.join(dir, READY))) return { sha, dir };
  if (!existsSync(dir)) {
    console.log(`bench: git worktree add --detach ${dir} ${sha.slice(0, 12)}`);
    git('worktree', 'add', '--detach', dir, sha);
  }
  console.log(`bench: npm ci in ${dir} (once; later runs reuse it)`);
  execFileSync('npm', ['ci', '--no-audit', '--no-fund'], { cwd: dir, stdio: 'inherit' });
  writeFileSync(path.join(dir, READY), `${sha}\n`);
  return { sha, dir };
}
