import type { DocumentNode } from 'graphql';
import { LRUCache } from 'lru-cache';
import { heldBytes } from './document.js';

/**
 * What a parsed document holds per token of its text, measured with graphql-js 16: the token itself (kept in a
 * linked list for error locations), its AST node and that node's location. A 5,000-token document (GRAPHQL_MAX_TOKENS)
 * of 19 KB parses to 1.6 MB.
 */
const AST_BYTES_PER_TOKEN = 400;
/** A parse error or refusal kept for a document: the error, its locations and message. */
const ERROR_BYTES = 1024;

function tokensOf(document: DocumentNode): number {
  let tokens = 0;
  for (let token = document.loc?.startToken ?? null; token; token = token.next) tokens++;
  return tokens;
}

/**
 * GraphQL Yoga's parse and validation caches (`parserAndValidationCache`) bounded by the memory their entries take
 * rather than by their number (Yoga keeps 1,024 of each, whatever their size: a thousand unique documents of 900 KB,
 * or of 5,000 tokens, took the process past its heap). The least recently used go first beyond `maxBytes`, and a
 * document larger than its share is not kept at all. Three quarters of `maxBytes` go to parsed documents, the rest to
 * the errors of documents that failed to parse; validation results are kept by Yoga as long as their document is.
 * `0`: nothing is kept.
 */
export function documentCaches(maxBytes: number) {
  if (maxBytes === 0) return false;
  const documentCache = new LRUCache<string, DocumentNode>({
    maxSize: Math.max(1, Math.floor((maxBytes * 3) / 4)),
    sizeCalculation: (document, text) => heldBytes(text) + tokensOf(document) * AST_BYTES_PER_TOKEN,
  });
  const errorCache = new LRUCache<string, object>({
    maxSize: Math.max(1, Math.floor(maxBytes / 4)),
    sizeCalculation: (_error, text) => heldBytes(text) + ERROR_BYTES,
  });
  return { documentCache, errorCache };
}
