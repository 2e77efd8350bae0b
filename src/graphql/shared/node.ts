import { brandWithType } from '@pothos/core';
import { queryFromInfo } from '@pothos/plugin-prisma';
import { decodeGlobalID } from '@pothos/plugin-relay';
import type { GraphQLResolveInfo } from 'graphql';
import { builder, type Context } from '../builder.js';
import { type FieldErrors, InputError, invalidField } from '../errors.js';
import { isStorableId } from './ids.js';

/** The record types that are Relay nodes. Their global IDs are `base64("<type>:<database ID>")`. */
export type NodeTypeName =
  | 'Event'
  | 'Venue'
  | 'Organizer'
  | 'EventCategory'
  | 'EventTag'
  | 'User'
  | 'Media'
  | 'ImportSource'
  | 'Webhook'
  | 'Credential';

/**
 * Reads one record of a node type by database ID for `node`/`nodes`, with the same visibility as the type's own root
 * field (it throws what that field throws, and answers null for a record that does not exist).
 */
type NodeReader = (ctx: Context, id: number, query: object) => Promise<object | null>;

const readers = new Map<string, NodeReader>();

export const NodeInterface = builder.nodeInterfaceRef();

/** Makes a type readable through `node(id:)` and `nodes(ids:)`. */
export function registerNodeReader(typename: NodeTypeName, read: NodeReader): void {
  readers.set(typename, read);
}

/** Options of a node type's `id` field: `id: t.globalID(globalIdField('Event'))`. */
export const globalIdField = (typename: NodeTypeName) => ({
  description: `The ${typename}'s global ID (opaque; use it with \`node(id:)\` and as a client cache key).`,
  resolve: (record: { id: number }) => ({ type: typename, id: record.id }),
});

/** Who else names records of a type by their database ID: the REST API, or for records REST has not, the CLI. */
const DATABASE_ID_USERS: Partial<Record<NodeTypeName, string>> = {
  ImportSource: 'the command line shows and takes (`sources list`, `sources run <id>`)',
  Webhook: 'the command line shows and takes (`webhooks list`, `webhooks delete <id>`)',
  Credential: 'the command line shows and takes (`passwords list`, `passwords revoke <id>`)',
};

/** Options of a node type's `databaseId` field: `databaseId: t.exposeInt('id', databaseIdField('Event'))`. */
export const databaseIdField = (typename: NodeTypeName) => ({
  description: `The ${typename}'s numeric ID, the one ${DATABASE_ID_USERS[typename] ?? 'the REST API and the list filters use'}.`,
});

const GLOBAL_ID_RULE = 'must be a global ID (from an `id` field) or a numeric database ID';

/**
 * The database ID named by an ID argument: a global ID of the expected type or, as WPGraphQL also accepts, the numeric
 * database ID itself. Anything else is refused naming the argument; a global ID of another type is refused too.
 */
export function databaseIdOf(typename: NodeTypeName, value: string | number, argument: string): number {
  const text = String(value).trim();
  if (/^\d+$/.test(text)) return checkedDatabaseId(Number(text), argument);
  const decoded = decodeGlobal(text);
  if (!decoded) throw invalidField(argument, GLOBAL_ID_RULE);
  if (decoded.typename !== typename)
    throw invalidField(argument, `is the ID of ${withArticle(decoded.typename)}, not of ${withArticle(typename)}`);
  return checkedDatabaseId(decoded.id, argument);
}

/** What an `ID` list argument naming records takes, for its description. */
export const EITHER_ID = 'Each a global ID (an `id` field) or a database ID (`databaseId`).';
/** What an `ID` argument naming one record takes, for its description. */
export const EITHER_ONE_ID = 'A global ID (an `id` field) or a database ID (`databaseId`).';

/**
 * The database IDs one reference of a filter names: its `ID` argument (one or a list; global or database IDs, as every
 * argument that names a record takes) or its older, deprecated `Int` one, not both. A malformed ID is added to
 * `errors` under its argument (`includeIds.1`), as is giving both; undefined then.
 */
export function referencedIds(
  errors: FieldErrors,
  typename: NodeTypeName,
  field: string,
  given: unknown,
  olderField: string,
  older: number | readonly number[] | null | undefined,
): number[] | null | undefined {
  if (given == null) return older == null ? older : ([] as number[]).concat(older);
  if (older != null) {
    errors.add(field, `give \`${field}\` or \`${olderField}\`, not both`);
    return undefined;
  }
  const values = Array.isArray(given) ? given : [given];
  const ids: number[] = [];
  values.forEach((value, index) => {
    const argument = Array.isArray(given) ? `${field}.${index}` : field;
    try {
      ids.push(databaseIdOf(typename, value as string | number, argument));
    } catch (error) {
      if (!(error instanceof InputError)) throw error;
      for (const [name, message] of Object.entries(error.fields)) errors.add(name, message);
    }
  });
  return ids;
}

const withArticle = (typename: string) => `${/^[AEIOU]/.test(typename) ? 'an' : 'a'} ${typename}`;

function checkedDatabaseId(id: number, argument: string): number {
  if (!isStorableId(id)) throw invalidField(argument, 'names no record (too large)');
  return id;
}

function decodeGlobal(text: string): { typename: string; id: number } | null {
  // A base64 text of `<Type>:<digits>`; the decoder itself accepts almost anything, so the shape is checked here.
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(text)) return null;
  try {
    const { typename, id } = decodeGlobalID(text);
    return /^[A-Za-z]+$/.test(typename) && /^\d{1,10}$/.test(id) ? { typename, id: Number(id) } : null;
  } catch {
    return null;
  }
}

async function readNode(ctx: Context, info: GraphQLResolveInfo, globalId: string, argument: string) {
  const decoded = decodeGlobal(globalId.trim());
  if (!decoded) throw invalidField(argument, 'must be a global ID (from an `id` field)');
  if (!readers.has(decoded.typename))
    throw invalidField(argument, `names a ${decoded.typename}, which is not a type of this API`);
  return readNodeOf(ctx, info, decoded.typename as NodeTypeName, checkedDatabaseId(decoded.id, argument));
}

/** A record of a node type for a field whose type is the Node interface, with that type's visibility; null when none. */
export async function readNodeOf(ctx: Context, info: GraphQLResolveInfo, typename: NodeTypeName, id: number) {
  const query = queryFromInfo({ context: ctx, info, typeName: typename });
  const record = await readers.get(typename)!(ctx, id, query);
  // The brand tells the Node interface which type the record is (Term rows are two types: categories and tags).
  if (record) brandWithType(record, typename as never);
  return record;
}

builder.queryFields((t) => ({
  node: t.field({
    type: NodeInterface,
    nullable: true,
    description:
      'Any record by its global ID, or null when there is none. Visibility is that of the record type’s own field.',
    args: { id: t.arg.id({ required: true, description: 'A global ID, as an `id` field returns it.' }) },
    resolve: (_root, args, ctx, info) => readNode(ctx, info, String(args.id), 'id'),
  }),
  nodes: t.field({
    type: [NodeInterface],
    nullable: { list: false, items: true },
    description:
      'Records by global ID, in the order asked; null in place of each that does not exist, and in place of each ID ' +
      'that is refused (malformed, or a record the viewer may not read), with an error at that place (`["nodes", 2]`).',
    args: { ids: t.arg.idList({ required: true, description: 'Global IDs (at most 100).' }) },
    // One promise per place, not Promise.all: graphql-js then nulls only the place whose read failed.
    resolve: (_root, args, ctx, info) => args.ids.map((id, index) => readNode(ctx, info, String(id), `ids.${index}`)),
  }),
}));
