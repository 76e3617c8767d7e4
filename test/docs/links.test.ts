import { describe, expect, it } from 'vitest';
import { allProblems, documents, problemsIn } from './doc-references.js';

// Docs stand alone: every link and every path they name is a file of this repository, and no
// reference points outside it (an absolute path, the contract's original location, an issue
// number of a tracker). The contract and design are vendored in docs/contract/ and link there.

describe('documentation references', () => {
  it('reads README.md and the docs, not the vendored contract', () => {
    const files = documents();
    expect(files).toContain('README.md');
    expect(files.some((f) => f.startsWith('docs/contract/'))).toBe(false);
  });

  it('every link, repository path and reference resolves inside the repository', () => {
    const problems = allProblems().map((p) => `${p.file}:${p.line}: ${p.message}`);
    expect(problems, problems.join('\n')).toEqual([]);
  });

  it('catches each kind of reference it is meant to', () => {
    const text = [
      '# Top',
      'See [gone](missing.md), [ok](conformance.md), [anchor](#nowhere) and [here](#top).', // 2: missing + anchor
      'Code in `src/modules/pricing/engine.ts` and `http/money.ts:12`, fine: `src/main.ts:3`.', // 3: two
      'Glob `src/modules/<area>/routes.ts` and `test/orders.test.ts` are fine.', // 4: none
      'Outside: /work/shared/spec/SPEC.md and ../../elsewhere.md.', // 5: /work/, ../, SPEC
      'Per SPEC.md, and [SPEC.md](contract/SPEC.md) is fine; see issue 27 and #12.', // 6: SPEC, issue, #12
      'Root `package.json` exists, `nope.config.ts` does not.', // 7: one
      'Module-relative `orders/create.ts` is fine; prose src/gone.ts is not, src/main.ts is.', // 8: one
      '```sh',
      'npx vitest run test/gone/nothing.test.ts src/nowhere/', // 10: two
      'see issue 12 # a code block may say anything but paths', // 11: none
      '```',
    ].join('\n');
    const lines = problemsIn('docs/example.md', text).map((p) => p.line);
    expect(lines).toEqual([2, 2, 3, 3, 5, 5, 5, 6, 6, 6, 7, 8, 10, 10]);
  });
});
