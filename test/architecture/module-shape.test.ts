import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { cyclesOf, filesUnder, MODULES_DIR, moduleGraph } from './module-graph.js';

// The shape every src/modules/<area>/ shares (docs/architecture.md, "Modules"): the same file
// names mean the same thing in every module, sub-features are folders, and no name collides.

const SRC = path.resolve(MODULES_DIR, '..');
const modules = fs.readdirSync(MODULES_DIR).sort();
const read = (file: string) => fs.readFileSync(file, 'utf8');

/** Files directly in `dir` and its sub-folders, for each folder of a module (the module and its sub-features). */
function foldersOf(area: string): { folder: string; files: string[]; dirs: string[] }[] {
  const out: { folder: string; files: string[]; dirs: string[] }[] = [];
  const walk = (dir: string) => {
    const entries = fs.readdirSync(dir, { withFileTypes: true });
    const dirs = entries.filter((e) => e.isDirectory()).map((e) => e.name);
    out.push({
      folder: path.relative(MODULES_DIR, dir),
      files: entries.filter((e) => e.isFile()).map((e) => e.name),
      dirs,
    });
    for (const d of dirs) walk(path.join(dir, d));
  };
  walk(path.join(MODULES_DIR, area));
  return out;
}

/** The layers besides modules, whose names and files name concepts of their own. */
const LAYERS = ['core', 'db', 'billing', 'events', 'unit-of-work', 'http', 'mcp'];

/** Names the other layers already use (src/<layer>/ and its files). */
function layerNames(): Set<string> {
  const names = new Set<string>(['config', 'clock']);
  for (const layer of LAYERS) {
    names.add(layer);
    for (const file of fs.readdirSync(path.join(SRC, layer))) names.add(file.replace(/\.ts$/, ''));
  }
  // The role names every layer shares are the vocabulary, not a collision.
  for (const role of [
    'index',
    'tables',
    'schemas',
    'tags',
    'crud',
    'deps',
    'routes',
    'service',
    'operations',
  ])
    names.delete(role);
  return names;
}

describe('modules of one shape', () => {
  it('no import cycle between module folders (not only between files)', () => {
    expect(cyclesOf(moduleGraph())).toEqual([]);
  });

  it('each module serves routes, and its index.ts (when others use it) only re-exports', () => {
    for (const area of modules) {
      const files = filesUnder(path.join(MODULES_DIR, area));
      expect(
        files.some((f) => /(^|\/|-)routes(\.ts|\/)/.test(f)),
        `${area} has a routes.ts, *-routes.ts or routes/`,
      ).toBe(true);
      const index = path.join(MODULES_DIR, area, 'index.ts');
      if (!fs.existsSync(index)) continue;
      const statements = read(index)
        .replace(/\/\/.*$/gm, '')
        .split(/;\s*/)
        .map((s) => s.trim())
        .filter(Boolean);
      for (const s of statements)
        expect(s, `${area}/index.ts: ${s}`).toMatch(/^export [\s\S]*from '\.\/[^']+'$/);
    }
  });

  it('tables are defined in tables.ts only, each declared with its placement', () => {
    for (const area of modules)
      for (const file of filesUnder(path.join(MODULES_DIR, area))) {
        const text = read(path.join(MODULES_DIR, area, file));
        if (!/\bpgTable\(/.test(text)) continue;
        expect(path.basename(file), `${area}/${file} defines a table`).toBe('tables.ts');
        const tables = text.match(/\bpgTable\(/g)?.length ?? 0;
        const declared = text.match(/\b(distributedTable|referenceTable)\(/g)?.length ?? 0;
        expect(declared, `${area}/${file}: every pgTable wrapped in distributedTable/referenceTable`).toBe(
          tables,
        );
      }
  });

  it('sub-features are folders: no folder of a module holds more than 14 files', () => {
    for (const area of modules)
      for (const { folder, files } of foldersOf(area))
        expect(files.length, `${folder} (${files.join(', ')})`).toBeLessThanOrEqual(14);
  });

  it('no name collides: not with a layer, not with another module', () => {
    const taken = layerNames();
    for (const area of modules) {
      expect(taken.has(area), `module ${area} is named like something of a lower layer`).toBe(false);
      for (const { folder, files, dirs } of foldersOf(area))
        for (const name of [...files.map((f) => f.replace(/\.ts$/, '')), ...dirs])
          expect(
            modules.includes(name) && name !== area,
            `${folder}/${name} is named like the module ${name}`,
          ).toBe(false);
    }
  });
});
