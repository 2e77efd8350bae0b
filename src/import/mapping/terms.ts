import type { Db } from '../../db/client.js';
import type { Taxonomy } from '../../db/generated/prisma/enums.js';
import { MalformedRecord, requiredText, text, type RemoteRecord } from '../remote.js';
import type { Input } from '../writer.js';
import { storedName, type LinkResolver, type RecordKind } from './kind.js';

function termFields(remote: RemoteRecord): Input {
  return {
    name: requiredText(remote, 'name'),
    slug: text(remote, 'slug') || undefined,
    description: text(remote, 'description'),
  };
}

function parentIdOf(remote: RemoteRecord): number {
  const parent = remote.parent ?? 0;
  const id = typeof parent === 'string' && /^\d+$/.test(parent) ? Number(parent) : parent;
  if (typeof id !== 'number' || !Number.isInteger(id) || id < 0) throw new MalformedRecord('"parent" is not a term ID');
  return id;
}

/** WordPress allows a name once under each parent, ignoring case; an existing term of that name is this one. */
async function sameNameTerms(db: Db, taxonomy: Taxonomy, input: Input): Promise<number[]> {
  const name = storedName(input.name).toLowerCase();
  const rows = await db.term.findMany({
    where: { taxonomy, parentId: (input.parentId as number | null | undefined) ?? null },
    select: { id: true, name: true },
  });
  return rows.filter((row) => row.name.toLowerCase() === name).map((row) => row.id);
}

// Every term, not only those with published events (the routes hide empty ones by default); names ascending.
const EVERY_TERM = { hide_empty: 'false' };

export const categoryKind: RecordKind = {
  type: 'category',
  route: '/categories',
  listKey: 'categories',
  hasStatus: false,
  listQuery: EVERY_TERM,
  mutations: { create: 'createEventCategory', update: 'updateEventCategory', inputType: 'TermInput' },

  async toInput(remote, links: LinkResolver) {
    const fields = termFields(remote);
    const parent = parentIdOf(remote);
    // The parent is imported first, so a hierarchy arrives parents before children.
    return { ...fields, parentId: parent === 0 ? null : await links.localId('category', parent) };
  },

  twins: (db, input) => sameNameTerms(db, 'category', input),
};

export const tagKind: RecordKind = {
  type: 'tag',
  route: '/tags',
  listKey: 'tags',
  hasStatus: false,
  listQuery: EVERY_TERM,
  mutations: { create: 'createEventTag', update: 'updateEventTag', inputType: 'TermInput' },

  toInput: async (remote) => termFields(remote),
  twins: (db, input) => sameNameTerms(db, 'tag', input),
};
