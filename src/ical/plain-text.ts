import sanitizeHtml from 'sanitize-html';

const BREAKS = ['br'];
const LINES = ['li', 'tr'];
const PARAGRAPHS = ['p', 'div', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'blockquote', 'pre', 'ul', 'ol', 'table'];

/**
 * HTML as the plain text a calendar shows: tags dropped (scripts and styles with their content), entities decoded,
 * a line break for `<br>`, list items and table rows, a blank line after paragraphs and other blocks. Line breaks in
 * the source are kept, as WordPress turns them into paragraphs when it renders the content.
 */
export function htmlToPlainText(html: string): string {
  // sanitize-html parses the HTML and leaves only bare block tags, with every `<`, `>` and `&` of the text escaped.
  const blocks = sanitizeHtml(html.replace(/\r\n?/g, '\n'), {
    allowedTags: [...BREAKS, ...LINES, ...PARAGRAPHS],
    allowedAttributes: {},
  });
  const text = blocks
    .replace(/<br\s*\/?>/g, '\n')
    .replace(new RegExp(`</(?:${LINES.join('|')})>`, 'g'), '\n')
    .replace(new RegExp(`</(?:${PARAGRAPHS.join('|')})>`, 'g'), '\n\n')
    .replace(/<[^>]*>/g, '')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&');
  return text
    .replace(/[ \t]+\n/g, '\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}
