// The second half of `npm run build` (after tsc has type-checked src/): bundles src/cli.ts and everything it imports
// into dist/, one file per part loaded on demand (GraphiQL's page, each engine's Prisma query compiler, seed, import).
// Why a bundle rather than tsc's one file per module: the server's resident memory (docs/performance.md, Memory).
// Node keeps, per loaded module, its source text, its module record and its resolution: the server's hundreds of
// modules took 13–16 MB more at the peak under load than the same code in a dozen chunks (bench/results.md, History 18).
import { readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { build } from 'esbuild';
import { PROJECT_ROOT } from '../src/project-files.js';

const OUT = join(PROJECT_ROOT, 'dist');

/** What stays outside the bundle: native addons, loaded from node_modules at run time. */
const EXTERNAL = ['better-sqlite3', 'pg-native'];

/** Packages the bundle replaces with a stub of its own (scripts/bundle-stubs/: each says why). */
const STUBBED = { 'fast-json-stringify': './scripts/bundle-stubs/fast-json-stringify.cjs' };

// Bundled CommonJS packages call `require` for Node's built-ins; an ES module has none of its own.
const REQUIRE_SHIM =
  "import { createRequire as createRequireOfBundle } from 'node:module';\n" +
  'const require = createRequireOfBundle(import.meta.url);';

/**
 * V8 keeps a script's source as one byte per character only while every character is Latin-1: one en dash left in a
 * regular expression or a tagged template (esbuild escapes the others) doubles a 2 MB chunk. `\uXXXX` means the same
 * character in a string, a template's cooked value, a regular expression and a comment; only a template's raw value
 * (`String.raw`) would differ, and no such template holds a character beyond Latin-1 (the build checks).
 */
function escapeBeyondLatin1(file: string): void {
  const source = readFileSync(file, 'utf8');
  if (!/[^\x00-\xff]/.test(source)) return;
  if (/String\.raw`[^`]*[^\x00-\xff]/.test(source)) throw new Error(`${file}: a String.raw template beyond Latin-1`);
  const escaped = source.replace(/[^\x00-\xff]/g, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`);
  writeFileSync(file, escaped);
}

// A clean folder each time: no chunk of an earlier build (or module of the earlier per-file build) is left behind.
for (const name of readdirSync(OUT)) if (name !== '.tsbuildinfo') rmSync(join(OUT, name), { recursive: true });
const result = await build({
  absWorkingDir: PROJECT_ROOT,
  entryPoints: ['src/cli.ts'],
  outdir: OUT,
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  external: EXTERNAL,
  alias: STUBBED,
  // The packages' production paths: graphql-js otherwise checks, on every failed `instanceof` of its type tests (several
  // per resolved field), whether a second copy of itself is loaded, which a bundle with one copy cannot have.
  define: { 'process.env.NODE_ENV': '"production"' },
  // Identifiers keep their names, so stack traces in the logs stay readable.
  minifyWhitespace: true,
  minifySyntax: true,
  legalComments: 'none',
  banner: { js: REQUIRE_SHIM },
  metafile: true,
  logLevel: 'warning',
});
for (const file of Object.keys(result.metafile.outputs)) escapeBeyondLatin1(join(PROJECT_ROOT, file));
