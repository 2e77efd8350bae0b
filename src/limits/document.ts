import { GraphQLError, Lexer, Source, TokenKind } from 'graphql';

export const QUERY_TOO_LARGE = 'QUERY_TOO_LARGE';
export const QUERY_TOO_DEEP = 'QUERY_TOO_DEEP';

/**
 * The deepest nesting of braces, brackets and parentheses in a document. graphql-js parses (and later validates and
 * coerces) a document recursively, so a literal such as `[[[[…]]]]` thousands of levels deep would overflow the
 * stack; selections stop at GRAPHQL_MAX_DEPTH long before this, and argument values at the input depth.
 */
export const MAX_DOCUMENT_NESTING = 64;

const OPENING = new Set<TokenKind>([TokenKind.BRACE_L, TokenKind.BRACKET_L, TokenKind.PAREN_L]);
const CLOSING = new Set<TokenKind>([TokenKind.BRACE_R, TokenKind.BRACKET_R, TokenKind.PAREN_R]);

const refusal = (code: string, message: string) =>
  new GraphQLError(message, { extensions: { code, http: { status: 400, spec: true } } });

/**
 * Refuses a document longer than `maxBytes` (UTF-8), before it is parsed, registered as a persisted query or kept in
 * any cache: whitespace and comments cost no token, so only this bounds what a document of few tokens holds.
 */
export function checkDocumentBytes(text: string, maxBytes: number): void {
  // A UTF-8 character takes at most 3 bytes per UTF-16 code unit: most documents are decided without counting.
  if (text.length * 3 <= maxBytes) return;
  const bytes = Buffer.byteLength(text);
  if (bytes > maxBytes)
    throw refusal(
      QUERY_TOO_LARGE,
      `The document is ${bytes} bytes long, more than the limit of ${maxBytes} (GRAPHQL_MAX_DOCUMENT_BYTES).`,
    );
}

/** The memory a string takes in V8: one byte a character while all are Latin-1, two otherwise. */
export function heldBytes(text: string): number {
  return /[^\u0000-\u00ff]/.test(text) ? text.length * 2 : text.length;
}

/**
 * Reads a document's tokens without parsing it (the lexer does not recurse) and refuses it when it has more than
 * `maxTokens` tokens or nests deeper than MAX_DOCUMENT_NESTING; lexical errors are left to the parser to report.
 */
export function checkDocumentSize(text: string, maxTokens: number): void {
  const lexer = new Lexer(new Source(text));
  let tokens = 0;
  let nesting = 0;
  try {
    for (let token = lexer.advance(); token.kind !== TokenKind.EOF; token = lexer.advance()) {
      if (++tokens > maxTokens)
        throw refusal(
          QUERY_TOO_LARGE,
          `The document has more than ${maxTokens} tokens, the limit (GRAPHQL_MAX_TOKENS).`,
        );
      if (OPENING.has(token.kind) && ++nesting > MAX_DOCUMENT_NESTING) {
        throw refusal(
          QUERY_TOO_DEEP,
          `The document nests braces, brackets or parentheses more than ${MAX_DOCUMENT_NESTING} levels deep.`,
        );
      }
      if (CLOSING.has(token.kind)) nesting--;
    }
  } catch (error) {
    if (error instanceof GraphQLError && error.extensions.code !== undefined) throw error;
  }
}
