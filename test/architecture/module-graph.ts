import fs from 'node:fs';
import path from 'node:path';

/** Where modules live; a module is a folder of it. */
export const MODULES_DIR = path.resolve(import.meta.dirname, '../../src/modules');

/** Every .ts file under `dir`, recursively, relative to it. */
export function filesUnder(dir: string): string[] {
  return fs
    .readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && e.name.endsWith('.ts'))
    .map((e) => path.relative(dir, path.join(e.parentPath, e.name)));
}

/** Which module each module imports (relative imports resolved; type-only imports count too). */
export function moduleGraph(): Map<string, Set<string>> {
  const graph = new Map<string, Set<string>>();
  for (const area of fs.readdirSync(MODULES_DIR)) {
    const edges = new Set<string>();
    graph.set(area, edges);
    for (const file of filesUnder(path.join(MODULES_DIR, area))) {
      const full = path.join(MODULES_DIR, area, file);
      const text = fs.readFileSync(full, 'utf8');
      for (const m of text.matchAll(/from '(\.[^']+)'/g)) {
        const target = path.relative(MODULES_DIR, path.resolve(path.dirname(full), m[1] as string));
        const [other] = target.split(path.sep);
        if (other && other !== area && !other.startsWith('..')) edges.add(other);
      }
    }
  }
  return graph;
}

/** The cycles of a graph (each as the path that closes it), by depth-first search. */
export function cyclesOf(graph: Map<string, Set<string>>): string[][] {
  const cycles: string[][] = [];
  const state = new Map<string, 'open' | 'done'>();
  const visit = (node: string, trail: string[]) => {
    state.set(node, 'open');
    for (const next of graph.get(node) ?? []) {
      if (state.get(next) === 'open') cycles.push([...trail.slice(trail.indexOf(next)), node, next]);
      else if (!state.has(next)) visit(next, [...trail, node]);
    }
    state.set(node, 'done');
  };
  for (const node of graph.keys()) if (!state.has(node)) visit(node, []);
  return cycles;
}
