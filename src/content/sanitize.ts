import sanitizeHtml from 'sanitize-html';
import { ALLOWED_ATTRIBUTES, ALLOWED_TAGS, ALLOWED_URL_SCHEMES, URL_ATTRIBUTES } from './allowed-html.js';

const POST_CONTENT: sanitizeHtml.IOptions = {
  allowedTags: ALLOWED_TAGS,
  allowedAttributes: ALLOWED_ATTRIBUTES,
  allowedSchemes: ALLOWED_URL_SCHEMES,
  allowedSchemesAppliedToAttributes: URL_ATTRIBUTES,
  // Tags that are not allowed go, their text stays; the content of script, style and the like goes with them.
  disallowedTagsMode: 'discard',
};

const NO_TAGS: sanitizeHtml.IOptions = { allowedTags: [], allowedAttributes: {} };

/** HTML reduced to what WordPress keeps in post content for users without `unfiltered_html`. */
export function safeHtml(html: string): string {
  return sanitizeHtml(html, POST_CONTENT);
}

/** The three references sanitize-html writes into text it returns. */
const unescapeText = (text: string) => text.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&');

/**
 * Text without markup, as characters: tags are removed (with the content of script and style), character references
 * decoded (`Rock &amp; Roll` → `Rock & Roll`). Decoding can reveal a tag (`&lt;b&gt;`), so this repeats until nothing
 * changes: the result holds no tag even for a reader that renders it as HTML.
 */
export function plainText(text: string): string {
  let current = text;
  // Each pass that changes the text shortens it; the bound only caps deliberately deep nesting.
  for (let pass = 0; pass < 8; pass++) {
    const next = unescapeText(sanitizeHtml(current, NO_TAGS));
    if (next === current) return next;
    current = next;
  }
  return sanitizeHtml(current, NO_TAGS);
}
