const HTML_SIGNIFICANT = /[<>&\u2028\u2029]/g;

/**
 * JSON.stringify, with `<`, `>`, `&`, U+2028 and U+2029 written as `\u003c` etc.: the same value for every JSON
 * reader, and no text in it (a venue's `</script>` in `json_ld`) can close the `<script type="application/ld+json">`
 * element or start an HTML comment a client pastes it into, nor end a JavaScript string literal in older engines.
 */
export function htmlSafeJson(value: unknown): string {
  return JSON.stringify(value).replace(
    HTML_SIGNIFICANT,
    (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}
