import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { useAPQ, type APQStore } from '@graphql-yoga/plugin-apq';
import { usePersistedOperations } from '@graphql-yoga/plugin-persisted-operations';
import {
  Kind,
  parse,
  print,
  separateOperations,
  validate,
  type DefinitionNode,
  type DocumentNode,
  type GraphQLSchema,
} from 'graphql';
import type { GraphQLParams, Plugin } from 'graphql-yoga';
import { LRUCache } from 'lru-cache';
import { ConfigError, type Config } from '../config.js';
import { sourceFile } from '../project-files.js';
import { heldBytes } from './document.js';

/** Registered operations: the ID a client sends (for Apollo's links, the SHA-256 of the text) → the document's text. */
export type Manifest = Record<string, string>;

type Settings = Config['persistedOperations'];

const REST_OPERATIONS = sourceFile('read/operations');

/** Persisted operations answer these errors; Apollo's link retries with the full text on PERSISTED_QUERY_NOT_FOUND. */
const NOT_FOUND = {
  message: 'PersistedQueryNotFound',
  extensions: { code: 'PERSISTED_QUERY_NOT_FOUND', http: { status: 404 } },
};
const ONLY_REGISTERED = {
  message:
    'Only registered operations are accepted here: send the SHA-256 hash of a registered document (extensions.persistedQuery.sha256Hash or documentId) instead of its text.',
  extensions: { code: 'PERSISTED_QUERY_ONLY', http: { status: 400 } },
};

const sha256Hex = (text: string) => createHash('sha256').update(text).digest('hex');

/** `documentId` of GraphQL over HTTP may name its hash algorithm (`sha256:…`). */
const withoutAlgorithm = (id: string) => id.replace(/^sha256:/, '');

const nameOf = (definition: DefinitionNode) => ('name' in definition && definition.name?.value) || '';

/** One operation's text, the same whatever the files' layout: the operation, then its fragments by name. */
function canonicalText(document: DocumentNode): string {
  const ofKind = (kind: Kind) => document.definitions.filter((definition) => definition.kind === kind);
  const byName = (a: DefinitionNode, b: DefinitionNode) => nameOf(a).localeCompare(nameOf(b));
  return print({
    ...document,
    definitions: [...ofKind(Kind.OPERATION_DEFINITION), ...ofKind(Kind.FRAGMENT_DEFINITION).sort(byName)],
  });
}

/**
 * The REST layer's operations (src/read/operations/*.graphql), each printed with the fragments it uses and keyed by
 * the SHA-256 of that text: derived from the documents at start, so it follows any change to them.
 */
export function restOperationsManifest(): Manifest {
  const files = readdirSync(REST_OPERATIONS)
    .filter((name) => name.endsWith('.graphql'))
    .sort();
  const source = files.map((name) => readFileSync(join(REST_OPERATIONS, name), 'utf8')).join('\n');
  const texts = Object.values(separateOperations(parse(source))).map(canonicalText);
  return Object.fromEntries(texts.map((text) => [sha256Hex(text), text]));
}

/** The operator's manifest (`{ "<id>": "<document>" }`, as Relay and GraphQL Code Generator write them), checked against the schema. */
function manifestFromFile(path: string, schema: GraphQLSchema): Manifest {
  const fail = (reason: string) => new ConfigError(`GRAPHQL_PERSISTED_OPERATIONS_FILE ${path}: ${reason}`);
  let manifest: unknown;
  try {
    manifest = JSON.parse(readFileSync(path, 'utf8'));
  } catch (error) {
    throw fail((error as Error).message);
  }
  if (manifest === null || typeof manifest !== 'object' || Array.isArray(manifest))
    throw fail('must be a JSON object of ID → document');
  return Object.fromEntries(
    Object.entries(manifest).map(([id, text]) => {
      if (typeof text !== 'string') throw fail(`the document of "${id}" is not a string`);
      const [error] = documentErrors(text, schema);
      if (error) throw fail(`the document of "${id}" is refused: ${error}`);
      return [withoutAlgorithm(id), text];
    }),
  );
}

function documentErrors(text: string, schema: GraphQLSchema): string[] {
  try {
    return validate(schema, parse(text)).map((error) => error.message);
  } catch (error) {
    return [(error as Error).message];
  }
}

/** Every registered operation: the REST layer's, then the operator's file (GRAPHQL_PERSISTED_OPERATIONS_FILE). */
export function registeredOperations(settings: Settings, schema: GraphQLSchema): Manifest {
  return {
    ...restOperationsManifest(),
    ...(settings.manifestFile ? manifestFromFile(settings.manifestFile, schema) : {}),
  };
}

/**
 * Apollo's automatic persisted queries: registered operations are known from the start; others are remembered once
 * a client sent their text with its hash (checked by the plugin), least recently used first out beyond `maxBytes`.
 */
function apqStore(registered: Map<string, string>, maxBytes: number): APQStore {
  const remembered = new LRUCache<string, string>({
    maxSize: maxBytes,
    sizeCalculation: (text, hash) => heldBytes(text) + heldBytes(hash),
  });
  return {
    get: (hash) => registered.get(hash) ?? remembered.get(hash),
    set: (hash, text) => void (registered.has(hash) || remembered.set(hash, text)),
  };
}

/** The ID of a registered operation: Apollo's `extensions.persistedQuery.sha256Hash`, or `documentId` (body or URL). */
function operationId(params: GraphQLParams & { documentId?: unknown }, request: Request): string | null {
  const apq = params.extensions?.persistedQuery as { version?: unknown; sha256Hash?: unknown } | undefined;
  if (apq?.version === 1 && typeof apq.sha256Hash === 'string') return apq.sha256Hash;
  const documentId = params.documentId ?? new URL(request.url).searchParams.get('documentId');
  return typeof documentId === 'string' ? withoutAlgorithm(documentId) : null;
}

/**
 * /graphql's persisted operations: Apollo's APQ protocol over POST and GET, or, with GRAPHQL_PERSISTED_ONLY, the
 * registered operations alone, by hash. REST runs its documents in process, outside GraphQL Yoga, either way.
 */
export function persistedOperationsPlugin(settings: Settings, schema: GraphQLSchema): Plugin {
  const registered = new Map(Object.entries(registeredOperations(settings, schema)));
  if (!settings.only) return useAPQ({ store: apqStore(registered, settings.apqStoreBytes) });
  return usePersistedOperations({
    allowArbitraryOperations: false,
    extractPersistedOperationId: operationId,
    getPersistedOperation: (id) => registered.get(id) ?? null,
    customErrors: { notFound: NOT_FOUND, persistedQueryOnly: ONLY_REGISTERED, keyNotFound: ONLY_REGISTERED },
  });
}
