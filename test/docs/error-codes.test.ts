import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ERROR_CODES } from '../../src/core/errors.js';
import { documents, ROOT } from './doc-references.js';

// Every error code a document names is one of the closed list (src/core/errors.ts) that the server
// still sends: a reader who matches on `session_terminal` must not be told `invalid_state`. The
// agentic protocols (ACP, UCP) have their own codes in their own envelopes: in
// docs/agentic-commerce.md a code may also be one of theirs that the checkout module sends.

const AGENTIC_DOC = 'docs/agentic-commerce.md';
const AGENTIC_SOURCE = 'src/modules/checkout-sessions';

interface Mention {
  code: string;
  line: number;
  text: string;
}

/** Where a text names an error code: `409 conflict`, 409 `conflict`, code `conflict`, a table row. */
const MENTIONS = [
  /`[45]\d\d ([a-z][a-z_]*)`/g,
  /\b[45]\d\d `([a-z][a-z_]*)`/g,
  /\bcodes? `([a-z][a-z_]*)`/g,
  /^\| `([a-z][a-z_]*)` \| [45]\d\d \|/gm,
];

function errorCodeMentions(text: string): Mention[] {
  const lines = text.split('\n');
  const lineAt = (offset: number) => text.slice(0, offset).split('\n').length;
  const found: Mention[] = [];
  for (const pattern of MENTIONS)
    for (const m of text.matchAll(pattern)) {
      const line = lineAt(m.index);
      found.push({ code: m[1] as string, line, text: lines[line - 1] as string });
    }
  return found.sort((a, b) => a.line - b.line);
}

const sourceFiles = (dir: string): string[] =>
  fs
    .readdirSync(path.join(ROOT, dir), { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile() && e.name.endsWith('.ts'))
    .map((e) => path.join(e.parentPath, e.name));

/** String literals of the source (outside the closed list itself): what the server can send. */
function literalsIn(dir: string, except?: string): Set<string> {
  const literals = new Set<string>();
  for (const file of sourceFiles(dir)) {
    if (except && file === path.join(ROOT, except)) continue;
    for (const m of fs.readFileSync(file, 'utf8').matchAll(/'([a-z][a-z_]*)'/g)) literals.add(m[1] as string);
  }
  return literals;
}

/** The problems of one document's mentions, given what the server sends. */
function codeProblems(file: string, text: string, sent: Set<string>, agenticCodes: Set<string>): string[] {
  const problems: string[] = [];
  for (const { code, line, text: lineText } of errorCodeMentions(text)) {
    const where = `${file}:${line}: \`${code}\``;
    if (code in ERROR_CODES) {
      // The closed list keeps a code no route sends any more; a doc may say so, and nothing else.
      if (!sent.has(code) && !/\breserved\b/.test(lineText))
        problems.push(`${where} is in the closed list but no route sends it`);
    } else if (!(file === AGENTIC_DOC && agenticCodes.has(code))) {
      problems.push(`${where} is not an error code (src/core/errors.ts)`);
    }
  }
  return problems;
}

describe('error codes named in the documentation', () => {
  const sent = literalsIn('src', 'src/core/errors.ts');
  const agenticCodes = literalsIn(AGENTIC_SOURCE);

  it('are codes of the closed list the server sends (or, for ACP and UCP, codes those envelopes carry)', () => {
    const problems: string[] = [];
    let mentions = 0;
    for (const file of documents()) {
      const text = fs.readFileSync(path.join(ROOT, file), 'utf8');
      mentions += errorCodeMentions(text).length;
      problems.push(...codeProblems(file, text, sent, agenticCodes));
    }
    expect(problems, problems.join('\n')).toEqual([]);
    expect(mentions).toBeGreaterThan(100);
  });

  it('catches a code that is not in the list, and one the server no longer sends', () => {
    const text = [
      'Completing a terminal session answers `400 invalid_state`.', // 1: no longer sent
      'Over the limit: 429 `rate_limited`; a bad cursor is 400 `stale`.', // 2: stale is a rule
      '| `invalid_state` | 400 | reserved (no route produces it now) |', // 3: fine
      'The error code `session_terminal` names it; the code `no_such_thing` does not exist.', // 4
      'UCP answers 400 `request_too_large`.', // 5: an agentic code outside agentic-commerce.md
    ].join('\n');
    const lines = (file: string) =>
      codeProblems(file, text, sent, agenticCodes).map((p) => Number(p.split(':')[1]));
    expect(lines('docs/operations.md')).toEqual([1, 2, 4, 5]);
    expect(lines(AGENTIC_DOC)).toEqual([1, 2, 4]);
    expect(sent.has('session_terminal') && !sent.has('invalid_state')).toBe(true);
  });
});
