// HTML built from template literals: every interpolated value is escaped unless it is already `Html` (a fragment
// built here, or stored HTML the sanitizer cleaned, marked with `trustedHtml`).

/** A piece of markup that is safe to insert as it is. */
export class Html {
  constructor(readonly markup: string) {}
  toString(): string {
    return this.markup;
  }
}

type Interpolated = Html | string | number | boolean | null | undefined | readonly Interpolated[];

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** Text as HTML text or attribute value (quoted): `& < > " '` written as character references. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (char) => ESCAPES[char]!);
}

function render(value: Interpolated): string {
  if (value instanceof Html) return value.markup;
  if (Array.isArray(value)) return value.map(render).join('');
  if (value === null || value === undefined || value === false) return '';
  return escapeHtml(String(value));
}

/** A template of markup whose interpolations are escaped text (or fragments, or lists of them); null and false render nothing. */
export function html(strings: TemplateStringsArray, ...values: Interpolated[]): Html {
  return new Html(strings.reduce((markup, part, index) => markup + render(values[index - 1] as Interpolated) + part));
}

/** Stored HTML that the content sanitizer already cleaned (src/content/sanitize.ts): descriptions, excerpts. */
export const trustedHtml = (markup: string) => new Html(markup);
