// The README is the front door and docs/ holds one page per topic: the README stays short, links every page, and no
// link in either leads nowhere; the code cites only documents that are in the repository.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const README = join(ROOT, 'README.md');
const DOCS = join(ROOT, 'docs');
const MAX_README_LINES = 250;
/** A document outside the repository that comments used to cite (spelled in two parts so this file does not). */
const ABSENT_DOCUMENT = ['rest', 'contract'].join('-');

const read = (file: string) => readFileSync(file, 'utf8');
const docsPages = () =>
  readdirSync(DOCS)
    .filter((name) => name.endsWith('.md'))
    .map((name) => join(DOCS, name));

/** Markdown outside fenced code blocks (links and headings in code are examples, not links). */
function prose(markdown: string): string {
  let inFence = false;
  return markdown
    .split('\n')
    .filter((line) => {
      if (line.startsWith('```')) inFence = !inFence;
      return !inFence;
    })
    .join('\n');
}

/** Relative link targets `[text](target)` of a page: not URLs with a scheme, not `<…>` autolinks. */
function relativeLinks(markdown: string): string[] {
  const targets = [...prose(markdown).matchAll(/\]\(([^)\s]+)\)/g)].map((match) => match[1]!);
  return targets.filter((target) => !/^[a-z][a-z0-9+.-]*:/i.test(target));
}

/** GitHub's anchor of a heading: lower case, punctuation dropped, spaces as hyphens. */
const headingAnchor = (heading: string) =>
  heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\- _]/gu, '')
    .replace(/ /g, '-');

function anchorsOf(markdown: string): Set<string> {
  const text = prose(markdown);
  const headings = [...text.matchAll(/^#{1,6} (.+)$/gm)].map((match) => headingAnchor(match[1]!));
  const explicit = [...text.matchAll(/<a id="([^"]+)"/g)].map((match) => match[1]!);
  return new Set([...headings, ...explicit]);
}

/** Every relative link of a page that leads nowhere: a missing file, or a missing heading of a Markdown file. */
function brokenLinks(page: string): string[] {
  const markdown = read(page);
  return relativeLinks(markdown).flatMap((link) => {
    const [path, anchor] = link.split('#') as [string, string | undefined];
    const target = path === '' ? page : resolve(dirname(page), decodeURI(path));
    if (!existsSync(target)) return [`${link} (no such file)`];
    if (anchor === undefined || !target.endsWith('.md') || statSync(target).isDirectory()) return [];
    return anchorsOf(read(target)).has(anchor) ? [] : [`${link} (no such heading)`];
  });
}

function filesUnder(folder: string): string[] {
  return readdirSync(folder, { withFileTypes: true }).flatMap((entry) => {
    const path = join(folder, entry.name);
    if (entry.isDirectory()) return entry.name === 'generated' || entry.name === 'node_modules' ? [] : filesUnder(path);
    return [path];
  });
}

/** Package names in the first column of the dependency tables of docs/development.md. */
function documentedPackages(): string[] {
  const page = read(join(DOCS, 'development.md'));
  const section = page.slice(page.indexOf('## Why each dependency'));
  const rows = section.split('\n').filter((line) => line.startsWith('| `'));
  return rows.flatMap((row) => [...row.split('|')[1]!.matchAll(/`([^`]+)`/g)].map((match) => match[1]!));
}

/** Environment variables the sources read: `env.NAME`, `env['NAME']`, or a reader's `(env, 'NAME'`. */
function environmentVariablesRead(): string[] {
  const pattern = /env\.([A-Z][A-Z0-9_]+)|env\[['"]([A-Z][A-Z0-9_]+)|\(env, '([A-Z][A-Z0-9_]+)'/g;
  const names = filesUnder(join(ROOT, 'src'))
    .filter((file) => file.endsWith('.ts'))
    .flatMap((file) => [...read(file).matchAll(pattern)].map((match) => match[1] ?? match[2] ?? match[3]!));
  return [...new Set(names)].sort();
}

describe('the README and docs/', () => {
  it(`keeps the README to at most ${MAX_README_LINES} lines`, () => {
    expect(read(README).trimEnd().split('\n').length).toBeLessThanOrEqual(MAX_README_LINES);
  });

  it('links every page of docs/ from the README', () => {
    const linked = new Set(relativeLinks(read(README)).map((link) => resolve(ROOT, link.split('#')[0]!)));
    const unlinked = docsPages().filter((page) => !linked.has(page));
    expect(unlinked.map((page) => relative(ROOT, page))).toEqual([]);
  });

  it('has no relative link, in the README or in docs/, to a file or heading that does not exist', () => {
    const broken = [README, ...docsPages()].flatMap((page) =>
      brokenLinks(page).map((link) => `${relative(ROOT, page)}: ${link}`),
    );
    expect(broken).toEqual([]);
  });

  it('lists every package of package.json once in the dependency tables, and nothing else', () => {
    const manifest = JSON.parse(read(join(ROOT, 'package.json'))) as Record<string, Record<string, string>>;
    const installed = [...Object.keys(manifest.dependencies!), ...Object.keys(manifest.devDependencies!)].sort();
    const documented = documentedPackages();
    expect(
      documented.filter((name, index) => documented.indexOf(name) !== index),
      'listed twice',
    ).toEqual([]);
    expect([...documented].sort()).toEqual(installed);
  });

  it('describes in docs/configuration.md every environment variable the sources read', () => {
    const page = read(join(DOCS, 'configuration.md'));
    const variables = environmentVariablesRead();
    expect(variables.length, 'the sources read variables this way').toBeGreaterThan(50);
    expect(variables.filter((name) => !page.includes(`\`${name}\``))).toEqual([]);
  });

  it('cites no document that is not in the repository from src/, test/, bench/ or scripts/', () => {
    const citing = ['src', 'test', 'bench', 'scripts']
      .flatMap((folder) => filesUnder(join(ROOT, folder)))
      .filter((file) => read(file).includes(ABSENT_DOCUMENT));
    expect(citing.map((file) => relative(ROOT, file))).toEqual([]);
  });
});
