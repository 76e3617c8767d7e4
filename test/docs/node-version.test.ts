import fs from 'node:fs';
import path from 'node:path';
import semver from 'semver';
import { describe, expect, it } from 'vitest';
import { ROOT } from './doc-references.js';

// One Node version everywhere: `engines` in package.json (and the client's), what the README and
// the docs tell a newcomer, and the engines of every package `npm ci` installs, so the quick start
// on the oldest Node we name prints no EBADENGINE warning and runs.

const readJson = (file: string) => JSON.parse(fs.readFileSync(path.join(ROOT, file), 'utf8'));
const read = (file: string) => fs.readFileSync(path.join(ROOT, file), 'utf8');

const engines: string = readJson('package.json').engines.node;
const minimum = semver.minVersion(engines)?.version as string;
/** "20.19" of "20.19.0": how the docs write it. */
const short = minimum.replace(/\.0$/, '');

interface LockedPackage {
  version?: string;
  engines?: Record<string, string> | string[];
  optional?: boolean;
}

/** Locked packages whose `engines.node` refuses `node` (a version). */
function refusing(packages: Record<string, LockedPackage>, node: string): string[] {
  return Object.entries(packages)
    .filter(([name, p]) => {
      const wanted = !Array.isArray(p.engines) ? p.engines?.node : undefined;
      return name !== '' && wanted !== undefined && !semver.satisfies(node, wanted);
    })
    .map(([name, p]) => {
      const wanted = (p.engines as Record<string, string>).node;
      return `${name.replace(/^.*node_modules\//, '')}@${p.version} needs node ${wanted}`;
    });
}

describe('the Node version', () => {
  it('is one range in package.json, the client and the lock file', () => {
    expect(engines).toBe('>=20.19');
    expect(readJson('packages/client/package.json').engines.node).toBe(engines);
    expect(readJson('package-lock.json').packages[''].engines.node).toBe(engines);
  });

  it('is what the README and the docs name', () => {
    expect(read('README.md')).toContain(`Node.js (>= ${short})`);
    expect(read('docs/operations.md')).toContain(`Requires Node.js ${short} or later.`);
    expect(read('docs/dependencies.md')).toContain(`Node.js ${short} or later is required.`);
    expect(read('packages/client/README.md')).toContain(`(Node.js ${short}+)`);
    // No doc names another minimum.
    for (const file of ['README.md', 'docs/getting-started.md']) {
      const named = [...read(file).matchAll(/Node(?:\.js)? \(?>?=? ?(\d+\.\d+)/g)].map((m) => m[1]);
      expect(
        named.filter((v) => v !== short),
        file,
      ).toEqual([]);
    }
  });

  it('is accepted by every package the lock file installs', () => {
    const packages = readJson('package-lock.json').packages as Record<string, LockedPackage>;
    expect(Object.keys(packages).length).toBeGreaterThan(100);
    expect(refusing(packages, minimum)).toEqual([]);
    // The check sees a refusal: cookie 2, which light-my-request 6.8 asks for, wants Node 22.
    expect(
      refusing({ 'node_modules/cookie': { version: '2.0.2', engines: { node: '>=22' } } }, minimum),
    ).toEqual(['cookie@2.0.2 needs node >=22']);
  });
});
