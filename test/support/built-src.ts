import { copyFileSync, mkdtempSync, readdirSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build, stop } from 'esbuild';
import type { TestProject } from 'vitest/node';

declare module 'vitest' {
  export interface ProvidedContext {
    /** A directory holding src/ compiled to JavaScript once (src/main.js ...), for child processes. */
    builtRoot: string | undefined;
  }
}

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const file = path.join(dir, entry.name);
    if (entry.isDirectory()) return sources(file);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts') ? [file] : [];
  });
}

/**
 * Global setup: the tests that start the server, the worker or the CLI as child processes start
 * them from src/ compiled once (esbuild, one file per module, no bundling) instead of through
 * tsx's loader on every start, which costs seconds per process on a loaded machine. The build
 * directory mirrors the repository's layout (src/, and drizzle/, examples/, node_modules/ linked)
 * so every path the code resolves from its own location is the same as from src/.
 */
export default async function setup(project: TestProject) {
  const root = mkdtempSync(path.join(tmpdir(), 'cak-built-src-'));
  await build({
    entryPoints: sources(path.join(ROOT, 'src')),
    outdir: path.join(root, 'src'),
    outbase: path.join(ROOT, 'src'),
    format: 'esm',
    platform: 'node',
    target: 'node20',
    sourcemap: 'inline',
    logLevel: 'warning',
  });
  await stop(); // esbuild's service process: nothing else to compile
  for (const linked of ['drizzle', 'examples', 'node_modules', 'packages'])
    symlinkSync(path.join(ROOT, linked), path.join(root, linked));
  copyFileSync(path.join(ROOT, 'package.json'), path.join(root, 'package.json'));
  project.provide('builtRoot', root);
  return () => rmSync(root, { recursive: true, force: true });
}

/** The compiled entry point for `script` (e.g. 'src/main.ts'), or tsx on the source without a build. */
export function nodeArgs(builtRoot: string | undefined, script: string): string[] {
  return builtRoot ? [path.join(builtRoot, script.replace(/\.ts$/, '.js'))] : ['--import', 'tsx', script];
}
