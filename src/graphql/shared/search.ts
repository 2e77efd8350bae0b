import type { Engine } from '../../config.js';

/**
 * Prisma's case-insensitive flag where the engine needs it: PostgreSQL compares case-sensitively, SQLite's LIKE
 * already folds ASCII letters. Contract on both engines: ASCII letters match whatever their case.
 */
export function caseInsensitive(engine: Engine): object {
  return engine === 'postgres' ? { mode: 'insensitive' } : {};
}

/** SQLite refuses a LIKE pattern of more than 50,000 bytes ("pattern too complex"); SQL gets at most this much. */
const MAX_PATTERN_CHARACTERS = 1_000;

/**
 * Case-insensitive search for a literal piece of text over some text columns.
 *
 * Prisma's `contains` becomes `LIKE '%text%'` without escaping, so `%` and `_` in the text would act as wildcards
 * (and `\` as an escape on PostgreSQL). Short text without those characters is matched in SQL directly. Otherwise
 * the longest piece free of them (at most MAX_PATTERN_CHARACTERS of it) narrows the rows in SQL (a superset of the
 * true matches), the exact test runs here, and the answer is a condition on the IDs found.
 */
export async function literalTextSearch(
  engine: Engine,
  text: string,
  fields: readonly string[],
  candidates: (where: object, select: Record<string, true>) => Promise<Array<Record<string, unknown>>>,
): Promise<object> {
  const fold = caseInsensitive(engine);
  if (!/[%_\\]/.test(text) && text.length <= MAX_PATTERN_CHARACTERS)
    return { OR: fields.map((field) => ({ [field]: { contains: text, ...fold } })) };
  const piece = longestLiteralPiece(text);
  const narrow = piece === '' ? {} : { OR: fields.map((field) => ({ [field]: { contains: piece, ...fold } })) };
  const select: Record<string, true> = { id: true };
  for (const field of fields) select[field] = true;
  const needle = foldAsciiCase(text);
  const ids = (await candidates(narrow, select))
    .filter((row) => fields.some((field) => foldAsciiCase(String(row[field] ?? '')).includes(needle)))
    .map((row) => row.id as number);
  return { id: { in: ids } };
}

/**
 * A condition that every record whose `field` equals `text` (ASCII letters case-insensitively) meets, and few others:
 * the caller decides with foldAsciiCase. PostgreSQL compares case-insensitively itself; SQLite's `=` does not, so there
 * the value must start and end with the text (LIKE, which folds ASCII letters). Text with LIKE's special characters
 * narrows by its longest piece free of them.
 */
export function equalTextCandidates(engine: Engine, field: string, text: string): object {
  if (!/[%_\\]/.test(text) && text.length <= MAX_PATTERN_CHARACTERS) {
    return engine === 'postgres'
      ? { [field]: { equals: text, mode: 'insensitive' } }
      : { [field]: { startsWith: text, endsWith: text } };
  }
  const piece = longestLiteralPiece(text);
  return piece === '' ? {} : { [field]: { contains: piece, ...caseInsensitive(engine) } };
}

function longestLiteralPiece(text: string): string {
  return text
    .split(/[%_\\]/)
    .reduce((longest, part) => (part.length > longest.length ? part : longest), '')
    .slice(0, MAX_PATTERN_CHARACTERS);
}

/** Lower-cases ASCII letters only, the way SQLite's LIKE compares. */
export function foldAsciiCase(value: string): string {
  return value.replace(/[A-Z]/g, (letter) => letter.toLowerCase());
}

/** Text fields of a record type: those anyone who sees the record reads, and those withheld while it is locked. */
export interface SearchedFields {
  open: readonly string[];
  withheld: readonly string[];
}

/**
 * literalTextSearch over what the viewer can read: the open fields of every record, the withheld fields only of
 * records whose content the request may read (`unlocked`: see access.ts unlockedWhere).
 */
export async function readableTextSearch(
  engine: Engine,
  text: string,
  fields: SearchedFields,
  unlocked: object,
  candidates: (where: object, select: Record<string, true>) => Promise<Array<Record<string, unknown>>>,
): Promise<object> {
  const open = await literalTextSearch(engine, text, fields.open, candidates);
  const withheld = await literalTextSearch(engine, text, fields.withheld, (where, select) =>
    candidates({ AND: [where, unlocked] }, select),
  );
  return { OR: [open, { AND: [withheld, unlocked] }] };
}

/** How a search's words are read, for the schema's descriptions. */
export const SEARCH_WORDS =
  'a record matches when it contains every word (ASCII letters in any case), as WordPress searches: "a quoted phrase" is one word, -word excludes, single letters and stopwords (the, of, with …) are left out.';

/** One term of a search: text to find, or (a leading `-`) text the record must not contain. */
export interface SearchTerm {
  text: string;
  exclude: boolean;
}

/** WordPress's search stopwords (the English list of WP_Query::get_search_stopwords): left out of a search's words. */
const STOPWORDS = new Set(
  'about an are as at be by com for from how in is it of on or that the this to was what when where who will with www'.split(
    ' ',
  ),
);

/** WordPress searches a string of more words than this as one phrase. */
const MAX_TERMS = 9;

/**
 * The terms of a search the way WordPress's `s` parses them (WP_Query::parse_search): words split at spaces, tabs,
 * commas and plus signs; "a quoted phrase" as one term; a leading `-` excludes; single letters, lone dashes and
 * stopwords are left out. When nothing is left, or more than nine terms are, the whole text is one term.
 */
export function searchTerms(search: string): SearchTerm[] {
  const text = search.replace(/[\r\n]/g, '');
  const pieces = text.match(/".*?("|$)|((?<=[\t ",+])|^)[^\t ",+]+/g) ?? [];
  const terms: SearchTerm[] = [];
  for (const piece of pieces) {
    let term = /^".+"$/.test(piece) ? piece.replace(/^["']+|["']+$/g, '') : piece.replace(/^["' ]+|["' ]+$/g, '');
    const exclude = term.length > 1 && term.startsWith('-');
    if (exclude) term = term.slice(1);
    if (!term || /^[a-z-]$/i.test(term) || STOPWORDS.has(term.toLowerCase())) continue;
    terms.push({ text: term, exclude });
  }
  return terms.length === 0 || terms.length > MAX_TERMS ? [{ text, exclude: false }] : terms;
}

/**
 * A search by words over what the viewer can read (WordPress's `s`): a record matches when it contains every term, each
 * in any of the fields, and none of the excluded ones. Each term is found as literal text (readableTextSearch).
 */
export async function readableWordSearch(
  engine: Engine,
  search: string,
  fields: SearchedFields,
  unlocked: object,
  candidates: (where: object, select: Record<string, true>) => Promise<Array<Record<string, unknown>>>,
): Promise<object> {
  const conditions = [];
  for (const term of searchTerms(search)) {
    const match = await readableTextSearch(engine, term.text, fields, unlocked, candidates);
    conditions.push(term.exclude ? { NOT: match } : match);
  }
  return { AND: conditions };
}
