import fs from 'node:fs';
import path from 'node:path';

/** The repository root. */
export const ROOT = path.resolve(import.meta.dirname, '../..');

/** Where the contract and design live, copied into the repository (vendored text, not checked). */
export const CONTRACT_DIR = 'docs/contract';

/** Top-level folders of the repository: inline code starting with one of them is a repository path. */
const TOP_FOLDERS = new Set([
  'src',
  'test',
  'docs',
  'bench',
  'scripts',
  'drizzle',
  'packages',
  'examples',
  '.ci',
]);

/** A path under a top-level folder written in running text or a code block. */
const REPO_PATH_IN_TEXT = new RegExp(
  `(?<![\\w/.$-])(?:${[...TOP_FOLDERS].map((f) => f.replace('.', '\\.')).join('|')})/[\\w./<>*{}-]*`,
  'g',
);

/** Root files named bare (`package.json`, `vitest.config.ts`, ...): checked against the root. */
const ROOT_FILE =
  /^(?:package(?:-lock)?\.json|tsconfig[\w.-]*\.json|biome\.json|redocly\.yaml|README\.md|drizzle\.schema\.ts|[\w-]+\.config\.[cm]?[jt]s|vitest\.[\w.-]+\.[cm]?[jt]s|\.dependency-cruiser\.cjs|\.gitignore)$/;

/** Source files named relative to some folder (`http/money.ts`, `orders/create.ts`): resolved
 * against the root, then src/, then src/modules/ (no module is named like a layer). */
const SOURCE_FILE = /\.(?:ts|tsx|js|cjs|mjs)$/;

export interface Problem {
  file: string;
  line: number;
  message: string;
}

/** The markdown files the check reads: README.md and docs/**, less the vendored contract. */
export function documents(): string[] {
  const docs = fs
    .readdirSync(path.join(ROOT, 'docs'), { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile() && e.name.endsWith('.md'))
    .map((e) => path.relative(ROOT, path.join(e.parentPath, e.name)).split(path.sep).join('/'))
    .filter((f) => !f.startsWith(`${CONTRACT_DIR}/`));
  return ['README.md', ...docs.sort()];
}

const exists = (repoPath: string) => fs.existsSync(path.join(ROOT, repoPath));

let testBasenames: Set<string> | undefined;
/** Basenames of every file under test/: a test reference survives the move into test/<area>/. */
function testBasename(name: string): boolean {
  testBasenames ??= new Set(
    fs
      .readdirSync(path.join(ROOT, 'test'), { recursive: true, withFileTypes: true })
      .filter((e) => e.isFile())
      .map((e) => e.name),
  );
  return testBasenames.has(name);
}

/** A path segment that stands for many (`*`, `<area>`, `{id}`, `...`): the check stops before it. */
const isGlob = (segment: string) => /[*<>{}]|\.\.\.|…/.test(segment);

/** Whether a repository-relative path exists (up to its first glob segment). */
export function repoPathExists(repoPath: string): boolean {
  const segments = repoPath.split('/');
  const cut = segments.findIndex(isGlob);
  const concrete = (cut === -1 ? segments : segments.slice(0, cut)).join('/');
  if (concrete === '' || exists(concrete)) return true;
  const base = segments.at(-1) ?? '';
  return cut === -1 && segments[0] === 'test' && testBasename(base);
}

/** A fenced code block. */
const FENCE = /^(\s*)(```|~~~)[^\n]*\n[\s\S]*?^\s*\2[^\n]*$/gm;

const blank = (s: string) => s.replace(/[^\n]/g, ' ');

/** Fenced code blocks blanked out (newlines kept, so offsets still give lines). */
function withoutFences(text: string): string {
  return text.replace(FENCE, blank);
}

/** Everything but fenced code blocks blanked out. */
function onlyFences(text: string): string {
  let out = blank(text);
  for (const m of text.matchAll(FENCE)) out = out.slice(0, m.index) + m[0] + out.slice(m.index + m[0].length);
  return out;
}

/** Inline code blanked out. */
function withoutInlineCode(text: string): string {
  return text.replace(/`[^`]+`/g, blank);
}

/** GitHub's anchor for each heading of a markdown text. */
export function anchorsOf(text: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  for (const m of withoutFences(text).matchAll(/^#{1,6}\s+(.+?)\s*#*\s*$/gm)) {
    const plain = (m[1] as string).replace(/\[([^\]]*)\]\([^)]*\)/g, '$1').replace(/[`*]/g, '');
    const slug = plain
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/\s/g, '-');
    const n = seen.get(slug) ?? 0;
    seen.set(slug, n + 1);
    anchors.add(n === 0 ? slug : `${slug}-${n}`);
  }
  return anchors;
}

const anchorCache = new Map<string, Set<string>>();
function anchorsOfFile(repoPath: string): Set<string> {
  let anchors = anchorCache.get(repoPath);
  if (!anchors) {
    anchors = anchorsOf(fs.readFileSync(path.join(ROOT, repoPath), 'utf8'));
    anchorCache.set(repoPath, anchors);
  }
  return anchors;
}

/** Every broken or outside reference in one document (a repository-relative path). */
export function problemsIn(
  file: string,
  text: string = fs.readFileSync(path.join(ROOT, file), 'utf8'),
): Problem[] {
  const problems: Problem[] = [];
  const lineAt = (offset: number) => text.slice(0, offset).split('\n').length;
  const report = (offset: number, message: string) => problems.push({ file, line: lineAt(offset), message });
  const dir = path.posix.dirname(file);
  const prose = withoutFences(text);

  // (a) Relative markdown links, inline and reference-style, whose target is missing.
  const contractLinks: [number, number][] = [];
  const links = [
    ...[...prose.matchAll(/!?\[((?:[^[\]]|\[[^\]]*\])*)\]\(\s*<?([^)\s>]*)>?(?:\s+"[^"]*")?\s*\)/g)].map(
      (m) => ({
        at: m.index,
        end: m.index + m[0].length,
        target: m[2] as string,
      }),
    ),
    ...[...prose.matchAll(/^\s*\[[^\]]+\]:\s*<?(\S+?)>?(?:\s+"[^"]*")?\s*$/gm)].map((m) => ({
      at: m.index,
      end: m.index + m[0].length,
      target: m[1] as string,
    })),
  ];
  for (const { at, end, target } of links) {
    if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue; // http(s):, mailto:, ...
    const [pathPart = '', anchor] = target.split('#', 2);
    if (pathPart === '') {
      if (anchor && !anchorsOf(text).has(decodeURIComponent(anchor)))
        report(at, `link to #${anchor}: no such heading in this file`);
      continue;
    }
    if (pathPart.startsWith('/')) {
      report(at, `link to ${target}: an absolute path, outside the repository`);
      continue;
    }
    const resolved = path.posix.normalize(path.posix.join(dir, decodeURIComponent(pathPart)));
    if (resolved.startsWith('../')) {
      report(at, `link to ${target}: outside the repository`);
      continue;
    }
    if (!repoPathExists(resolved)) {
      report(at, `link to ${target}: ${resolved} does not exist`);
      continue;
    }
    if (resolved === `${CONTRACT_DIR}/SPEC.md` || resolved === `${CONTRACT_DIR}/DESIGN.md`)
      contractLinks.push([at, end]);
    if (anchor && resolved.endsWith('.md') && !anchorsOfFile(resolved).has(decodeURIComponent(anchor)))
      report(at, `link to ${target}: no heading #${anchor} in ${resolved}`);
  }

  // (b) Inline code naming a repository path that does not exist.
  for (const m of prose.matchAll(/`([^`]+)`/g)) {
    const code = (m[1] as string).trim();
    const tokens = code.split(/\s+/);
    for (const raw of tokens) {
      const token = raw.replace(/[),;.'"]+$/, '').replace(/^[('"]+/, '');
      const problem = pathProblem(token, tokens.length === 1);
      if (problem) report(m.index, problem);
    }
  }

  // (b') Repository paths outside inline code: in prose (a file or a folder) and in code blocks.
  const plain = withoutInlineCode(prose).replace(/\]\([^)]*\)/g, blank);
  const fences = onlyFences(text);
  for (const [source, where] of [
    [plain, 'in prose'],
    [fences, 'in a code block'],
  ] as const) {
    for (const m of source.matchAll(REPO_PATH_IN_TEXT)) {
      const bare = (m[0] as string).replace(/[.,;:]+$/, '');
      if (where === 'in prose' && !/\.\w+$|\/$/.test(bare)) continue;
      if (!repoPathExists(bare)) report(m.index, `${bare} (${where}) does not exist`);
    }
  }

  // (c) Documents outside the repository: absolute paths, paths leaving the repository, the contract
  // named without a link to its copy, and issue numbers of a tracker outside the repository.
  for (const m of text.matchAll(/(?<![\w.:/])\/work\/[^\s`)\]]*/g))
    report(m.index, `${m[0]}: outside the repository`);
  for (const m of prose.matchAll(/(?<![\w.])(?:\.\.\/)+[^\s`)\]]*/g)) {
    const resolved = path.posix.normalize(path.posix.join(dir, m[0]));
    if (resolved.startsWith('../')) report(m.index, `${m[0]}: outside the repository`);
  }
  for (const m of prose.matchAll(/\b(SPEC|DESIGN)(?:\.md)?\b/g)) {
    const inLink = contractLinks.some(([from, to]) => m.index >= from && m.index < to);
    const vendoredPath = prose.slice(Math.max(0, m.index - 9), m.index).endsWith('contract/');
    if (!inLink && !vendoredPath)
      report(
        m.index,
        `${m[0]}: link it to its copy, [${m[1]}.md](${path.posix.relative(dir, CONTRACT_DIR) || '.'}/${m[1]}.md)`,
      );
  }
  for (const m of plain.matchAll(/\b(?:issues?|PRs?|pull requests?)\s+#?\d+\b|(?<![\w&/#])#\d+\b(?![-\w])/gi))
    report(m.index, `"${m[0]}": an issue of a tracker outside the repository; say what it was instead`);

  return problems.sort((a, b) => a.line - b.line);
}

/** Why an inline-code token naming a path is wrong, or undefined when it is fine or not a path. */
function pathProblem(token: string, alone: boolean): string | undefined {
  if (token === '' || token.includes('://') || /^[@<$~]/.test(token)) return undefined;
  if (token.startsWith('/')) return undefined; // a route or a system path; /work/ is reported below
  const bare = token.replace(/^\.\//, '').replace(/[#:].*$/, '');
  const [first = ''] = bare.split('/');
  if (bare.includes('/') && TOP_FOLDERS.has(first)) {
    return repoPathExists(bare) ? undefined : `\`${token}\`: ${bare} does not exist`;
  }
  if (!bare.includes('/')) {
    if (ROOT_FILE.test(bare) && !exists(bare)) return `\`${token}\`: no ${bare} at the repository root`;
    return undefined;
  }
  if (alone && SOURCE_FILE.test(bare) && !bare.split('/').some(isGlob) && !bare.startsWith('../')) {
    if (exists(bare) || exists(`src/${bare}`) || exists(`src/modules/${bare}`)) return undefined;
    return `\`${token}\`: none of ${bare}, src/${bare}, src/modules/${bare} exists`;
  }
  return undefined;
}

/** Every problem in every document the check reads, except those pending a rewrite. */
export function allProblems(): Problem[] {
  return documents().flatMap((f) => problemsIn(f));
}
