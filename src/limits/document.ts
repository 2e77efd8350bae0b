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

const refusal = (code: string, message: string) => new GraphQLError(message, { extensions: { code, http: { status: 400, spec: true } } });

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
      if (++tokens > maxTokens) throw refusal(QUERY_TOO_LARGE, `The document has more than ${maxTokens} tokens, the limit (GRAPHQL_MAX_TOKENS).`);
      if (OPENING.has(token.kind) && ++nesting > MAX_DOCUMENT_NESTING) {
        throw refusal(QUERY_TOO_DEEP, `The document nests braces, brackets or parentheses more than ${MAX_DOCUMENT_NESTING} levels deep.`);
      }
      if (CLOSING.has(token.kind)) nesting--;
    }
  } catch (error) {
    if (error instanceof GraphQLError && error.extensions.code !== undefined) throw error;
  }
}
