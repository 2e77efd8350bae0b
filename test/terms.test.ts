import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCategory, createEvent, createTag, unique } from './support/factories.js';
import { startServer, type GraphQLResult, type TestServer } from './support/server.js';

let server: TestServer;
beforeAll(async () => {
  server = await startServer();
});
afterAll(() => server.close());

const CATEGORY_FIELDS =
  'id: databaseId name slug description count parentId parent { id: databaseId name } children { edges { node { id: databaseId name } } }';
/** The `children` connection holding these nodes, in this order. */
const childEdges = (...nodes: object[]) => ({ edges: nodes.map((node) => ({ node })) });
const TAG_FIELDS = 'id: databaseId name slug description count';

const CREATE_CATEGORY = `mutation ($input: TermInput!) { createEventCategory(input: $input) { ${CATEGORY_FIELDS} } }`;
const UPDATE_CATEGORY = `mutation ($id: ID!, $input: TermInput!) { updateEventCategory(id: $id, input: $input) { ${CATEGORY_FIELDS} } }`;
const DELETE_CATEGORY = `mutation ($id: ID!) { deleteEventCategory(id: $id) { id: databaseId name slug description parentId count } }`;
const CATEGORY = `query ($id: ID!) { eventCategory(id: $id) { ${CATEGORY_FIELDS} } }`;
const CREATE_TAG = `mutation ($input: TermInput!) { createEventTag(input: $input) { ${TAG_FIELDS} } }`;
const UPDATE_TAG = `mutation ($id: ID!, $input: TermInput!) { updateEventTag(id: $id, input: $input) { ${TAG_FIELDS} } }`;
const DELETE_TAG = `mutation ($id: ID!) { deleteEventTag(id: $id) { ${TAG_FIELDS} } }`;
const TAG = `query ($id: ID!) { eventTag(id: $id) { ${TAG_FIELDS} } }`;

const LIST_ARGS = `$search: String, $include: [Int!], $exclude: [Int!], $order: SortOrder, $orderBy: TermOrderBy,
  $hideEmpty: Boolean, $event: Int, $slug: String, $first: Int, $after: String`;
const LIST_PASS = `search: $search, include: $include, exclude: $exclude, order: $order, orderBy: $orderBy, hideEmpty: $hideEmpty,
  event: $event, slug: $slug, first: $first, after: $after`;
const CATEGORIES = `query (${LIST_ARGS}, $parent: Int) {
  eventCategories(${LIST_PASS}, parent: $parent) { totalCount pageInfo { hasNextPage endCursor } edges { node { id: databaseId name count } } }
}`;
const TAGS = `query (${LIST_ARGS}) {
  eventTags(${LIST_PASS}) { totalCount pageInfo { hasNextPage endCursor } edges { node { id: databaseId name count } } }
}`;

function onlyError(result: GraphQLResult) {
  expect(result.errors, 'expected the operation to fail').toBeDefined();
  expect(result.errors).toHaveLength(1);
  return result.errors![0];
}

function expectInputError(result: GraphQLResult, ...fields: string[]) {
  const error = onlyError(result);
  expect(error.extensions?.code).toBe('BAD_USER_INPUT');
  expect(Object.keys(error.extensions?.fields ?? {}).sort()).toEqual([...fields].sort());
  return error;
}

async function categoryIds(variables: Record<string, unknown>): Promise<number[]> {
  return (await server.gqlOk(CATEGORIES, variables)).eventCategories.edges.map((edge: any) => edge.node.id);
}

async function tagIds(variables: Record<string, unknown>): Promise<number[]> {
  return (await server.gqlOk(TAGS, variables)).eventTags.edges.map((edge: any) => edge.node.id);
}

/** A published event carrying the given terms. */
function eventWith(terms: { categories?: number[]; tags?: number[] }, input: Record<string, unknown> = {}) {
  return createEvent(server, {
    ...(terms.categories ? { categories: terms.categories.map(String) } : {}),
    ...(terms.tags ? { tags: terms.tags.map(String) } : {}),
    ...input,
  });
}

describe('createEventCategory and createEventTag', () => {
  it('creates a category and reads it back by ID', async () => {
    const name = `Live Music ${unique('c')}`;
    const { createEventCategory: category } = await server.gqlOk(CREATE_CATEGORY, {
      input: { name: ` ${name} `, description: 'Concerts' },
    });
    expect(category).toEqual({
      id: expect.any(Number),
      name,
      slug: name.toLowerCase().replace(/ /g, '-'),
      description: 'Concerts',
      count: 0,
      parentId: null,
      parent: null,
      children: childEdges(),
    });
    expect((await server.gqlOk(CATEGORY, { id: category.id })).eventCategory).toEqual(category);
  });

  it('creates a tag and reads it back by ID', async () => {
    const name = `Outdoor ${unique('t')}`;
    const { createEventTag: tag } = await server.gqlOk(CREATE_TAG, { input: { name } });
    expect(tag).toEqual({
      id: expect.any(Number),
      name,
      slug: name.toLowerCase().replace(/ /g, '-'),
      description: '',
      count: 0,
    });
    expect((await server.gqlOk(TAG, { id: tag.id })).eventTag).toEqual(tag);
  });

  it("keeps categories and tags apart: neither is found by the other's ID", async () => {
    const category = await createCategory(server);
    const tag = await createTag(server);
    expect((await server.gqlOk(TAG, { id: category.id })).eventTag).toBeNull();
    expect((await server.gqlOk(CATEGORY, { id: tag.id })).eventCategory).toBeNull();
    expect((await server.gqlOk(CATEGORY, { id: 999_999 })).eventCategory).toBeNull();
  });

  it('allows the same name and slug in both taxonomies', async () => {
    const name = `Shared ${unique('s')}`;
    const category = await createCategory(server, { name });
    const tag = await createTag(server, { name });
    expect(tag.slug).toBe(category.slug);
  });

  it('requires a name', async () => {
    expectInputError(await server.gql(CREATE_CATEGORY, { input: { description: 'x' } }), 'name');
    expectInputError(await server.gql(CREATE_CATEGORY, { input: { name: '  ' } }), 'name');
    expectInputError(await server.gql(CREATE_TAG, { input: {} }), 'name');
  });

  it('refuses a blank slug', async () => {
    expectInputError(await server.gql(CREATE_TAG, { input: { name: unique('T'), slug: ' ' } }), 'slug');
  });

  it('uses a given slug, normalised', async () => {
    const slug = `Custom Slug ${unique('x')}`;
    const tag = await createTag(server, { slug });
    expect(tag.slug).toBe(slug.toLowerCase().replace(/ /g, '-'));
  });

  it('adds -2, -3 … to a slug already taken in the same taxonomy', async () => {
    const slug = `taken-${unique('x')}`;
    const first = await createCategory(server, { slug });
    const second = await createCategory(server, { slug });
    const third = await createCategory(server, { name: slug });
    expect([first.slug, second.slug, third.slug]).toEqual([slug, `${slug}-2`, `${slug}-3`]);
  });

  it('refuses a second category with the same name under the same parent, answering the existing one in termExists', async () => {
    const name = `Theatre ${unique('d')}`;
    const existing = await createCategory(server, { name });
    const error = expectInputError(await server.gql(CREATE_CATEGORY, { input: { name: name.toUpperCase() } }), 'name');
    expect(error.extensions?.termExists).toBe(existing.id);

    const parent = await createCategory(server);
    const child = await createCategory(server, { name, parentId: parent.id });
    expect(child.slug).toBe(`${existing.slug}-2`);
    const again = expectInputError(await server.gql(CREATE_CATEGORY, { input: { name, parentId: parent.id } }), 'name');
    expect(again.extensions?.termExists).toBe(child.id);
  });

  it('refuses a second tag with the same name, answering the existing one in termExists', async () => {
    const tag = await createTag(server);
    const error = expectInputError(
      await server.gql(CREATE_TAG, { input: { name: ` ${tag.slug.toUpperCase()} ` } }),
      'name',
    );
    expect(error.extensions?.termExists).toBe(tag.id);
  });

  it('places a category below an existing parent', async () => {
    const parent = await createCategory(server, {}, 'name');
    const { createEventCategory: child } = await server.gqlOk(CREATE_CATEGORY, {
      input: { name: unique('Child'), parentId: parent.id },
    });
    expect(child).toMatchObject({ parentId: parent.id, parent: { id: parent.id, name: parent.name } });
    expect((await server.gqlOk(CATEGORY, { id: parent.id })).eventCategory.children).toEqual(
      childEdges({ id: child.id, name: child.name }),
    );
  });

  it('refuses a parent that does not exist or is a tag', async () => {
    expectInputError(
      await server.gql(CREATE_CATEGORY, { input: { name: unique('C'), parentId: 999_999 } }),
      'parentId',
    );
    const tag = await createTag(server);
    expectInputError(await server.gql(CREATE_CATEGORY, { input: { name: unique('C'), parentId: tag.id } }), 'parentId');
  });

  it('refuses a parent for a tag', async () => {
    const parent = await createTag(server);
    expectInputError(await server.gql(CREATE_TAG, { input: { name: unique('T'), parentId: parent.id } }), 'parentId');
  });
});

describe('updateEventCategory and updateEventTag', () => {
  it('changes the fields given and keeps the slug unless a new one is asked for', async () => {
    const category = await createCategory(server, { description: 'old' }, 'name description');
    const name = unique('Renamed');
    const { updateEventCategory: renamed } = await server.gqlOk(UPDATE_CATEGORY, { id: category.id, input: { name } });
    expect(renamed).toMatchObject({ id: category.id, name, slug: category.slug, description: 'old' });
    const { updateEventCategory: described } = await server.gqlOk(UPDATE_CATEGORY, {
      id: category.id,
      input: { description: 'new' },
    });
    expect(described).toMatchObject({ name, description: 'new' });
  });

  it('moves to a requested slug, numbered when another term of the taxonomy has it', async () => {
    const taken = await createTag(server);
    const tag = await createTag(server);
    const { updateEventTag: same } = await server.gqlOk(UPDATE_TAG, { id: tag.id, input: { slug: tag.slug } });
    expect(same.slug).toBe(tag.slug);
    const { updateEventTag: moved } = await server.gqlOk(UPDATE_TAG, { id: tag.id, input: { slug: taken.slug } });
    expect(moved.slug).toBe(`${taken.slug}-2`);
  });

  it('allows renaming a term to its own name in another case', async () => {
    const tag = await createTag(server, {}, 'name');
    const { updateEventTag: updated } = await server.gqlOk(UPDATE_TAG, {
      id: tag.id,
      input: { name: tag.name.toUpperCase() },
    });
    expect(updated.name).toBe(tag.name.toUpperCase());
  });

  it('refuses a name another term under the same parent has', async () => {
    const parent = await createCategory(server);
    const sibling = await createCategory(server, { parentId: parent.id }, 'name');
    const category = await createCategory(server, { parentId: parent.id });
    const error = expectInputError(
      await server.gql(UPDATE_CATEGORY, { id: category.id, input: { name: sibling.name } }),
      'name',
    );
    expect(error.extensions?.termExists).toBe(sibling.id);
    const tag = await createTag(server, {}, 'name');
    const other = await createTag(server);
    expect(
      expectInputError(await server.gql(UPDATE_TAG, { id: other.id, input: { name: tag.name } }), 'name').extensions
        ?.termExists,
    ).toBe(tag.id);
  });

  it('refuses to move a category below a parent that already has a child of that name', async () => {
    const name = unique('Twin');
    const parent = await createCategory(server);
    const twin = await createCategory(server, { name, parentId: parent.id });
    const category = await createCategory(server, { name });
    const error = expectInputError(
      await server.gql(UPDATE_CATEGORY, { id: category.id, input: { parentId: parent.id } }),
      'name',
    );
    expect(error.extensions?.termExists).toBe(twin.id);
  });

  it('moves a category below another one and back to the top level', async () => {
    const parent = await createCategory(server);
    const category = await createCategory(server);
    const { updateEventCategory: moved } = await server.gqlOk(UPDATE_CATEGORY, {
      id: category.id,
      input: { parentId: parent.id },
    });
    expect(moved).toMatchObject({ parentId: parent.id, parent: { id: parent.id } });
    const { updateEventCategory: top } = await server.gqlOk(UPDATE_CATEGORY, {
      id: category.id,
      input: { parentId: null },
    });
    expect(top).toMatchObject({ parentId: null, parent: null });
    expect((await server.gqlOk(CATEGORY, { id: parent.id })).eventCategory.children).toEqual(childEdges());
  });

  it('keeps the parent when parentId is left out', async () => {
    const parent = await createCategory(server);
    const category = await createCategory(server, { parentId: parent.id });
    const { updateEventCategory: updated } = await server.gqlOk(UPDATE_CATEGORY, {
      id: category.id,
      input: { description: 'd' },
    });
    expect(updated.parentId).toBe(parent.id);
  });

  it('refuses to make a category its own parent', async () => {
    const category = await createCategory(server);
    expectInputError(
      await server.gql(UPDATE_CATEGORY, { id: category.id, input: { parentId: category.id } }),
      'parentId',
    );
  });

  it('refuses to move a category below one of its descendants', async () => {
    const top = await createCategory(server);
    const child = await createCategory(server, { parentId: top.id });
    const grandchild = await createCategory(server, { parentId: child.id });
    expectInputError(await server.gql(UPDATE_CATEGORY, { id: top.id, input: { parentId: child.id } }), 'parentId');
    expectInputError(await server.gql(UPDATE_CATEGORY, { id: top.id, input: { parentId: grandchild.id } }), 'parentId');
    expect((await server.gqlOk(CATEGORY, { id: top.id })).eventCategory.parentId).toBeNull();
  });

  it('refuses a parent for a tag and an unknown parent for a category', async () => {
    const tag = await createTag(server);
    const other = await createTag(server);
    expectInputError(await server.gql(UPDATE_TAG, { id: tag.id, input: { parentId: other.id } }), 'parentId');
    const category = await createCategory(server);
    expectInputError(await server.gql(UPDATE_CATEGORY, { id: category.id, input: { parentId: 999_999 } }), 'parentId');
  });

  it('refuses a blank name or slug', async () => {
    const tag = await createTag(server);
    expectInputError(await server.gql(UPDATE_TAG, { id: tag.id, input: { name: '' } }), 'name');
    expectInputError(await server.gql(UPDATE_TAG, { id: tag.id, input: { slug: '  ' } }), 'slug');
  });

  it('answers NOT_FOUND for an unknown term or one of the other taxonomy', async () => {
    const category = await createCategory(server);
    expect(onlyError(await server.gql(UPDATE_CATEGORY, { id: 999_999, input: { name: 'x' } })).extensions?.code).toBe(
      'NOT_FOUND',
    );
    expect(onlyError(await server.gql(UPDATE_TAG, { id: category.id, input: { name: 'x' } })).extensions?.code).toBe(
      'NOT_FOUND',
    );
  });
});

describe('deleteEventCategory and deleteEventTag', () => {
  it('deletes the term for good and answers it as it was', async () => {
    const tag = await createTag(server, { description: 'bye' }, 'name description');
    await eventWith({ tags: [tag.id] });
    const { deleteEventTag: deleted } = await server.gqlOk(DELETE_TAG, { id: tag.id });
    expect(deleted).toEqual({ id: tag.id, name: tag.name, slug: tag.slug, description: 'bye', count: 1 });
    expect((await server.gqlOk(TAG, { id: tag.id })).eventTag).toBeNull();
    expect(onlyError(await server.gql(DELETE_TAG, { id: tag.id })).extensions?.code).toBe('NOT_FOUND');
  });

  it('takes the deleted term off its events', async () => {
    const category = await createCategory(server);
    const kept = await createCategory(server);
    const event = await eventWith({ categories: [category.id, kept.id] });
    await server.gqlOk(DELETE_CATEGORY, { id: category.id });
    const data = await server.gqlOk(`query ($id: ID!) { event(id: $id) { categories { id: databaseId } } }`, {
      id: event.id,
    });
    expect(data.event.categories).toEqual([{ id: kept.id }]);
  });

  it('moves the children of a deleted category to its parent', async () => {
    const grandparent = await createCategory(server);
    const parent = await createCategory(server, { parentId: grandparent.id });
    const first = await createCategory(server, { name: `A ${unique('child')}`, parentId: parent.id });
    const second = await createCategory(server, { name: `B ${unique('child')}`, parentId: parent.id });
    const grandchild = await createCategory(server, { parentId: first.id });

    const { deleteEventCategory: deleted } = await server.gqlOk(
      `mutation ($id: ID!) { deleteEventCategory(id: $id) { id: databaseId parentId parent { id: databaseId } children { edges { node { id: databaseId } } } } }`,
      { id: parent.id },
    );
    expect(deleted).toEqual({
      id: parent.id,
      parentId: grandparent.id,
      parent: { id: grandparent.id },
      children: childEdges({ id: first.id }, { id: second.id }),
    });

    const data = await server.gqlOk(CATEGORY, { id: grandparent.id });
    expect(data.eventCategory.children.edges.map((edge: any) => edge.node.id)).toEqual([first.id, second.id]);
    expect((await server.gqlOk(CATEGORY, { id: first.id })).eventCategory).toMatchObject({
      parentId: grandparent.id,
      children: childEdges({ id: grandchild.id }),
    });
  });

  it('makes the children of a deleted top-level category top-level', async () => {
    const parent = await createCategory(server);
    const child = await createCategory(server, { parentId: parent.id });
    await server.gqlOk(DELETE_CATEGORY, { id: parent.id });
    expect((await server.gqlOk(CATEGORY, { id: child.id })).eventCategory).toMatchObject({
      parentId: null,
      parent: null,
    });
  });

  it('answers NOT_FOUND for an unknown term or one of the other taxonomy', async () => {
    const tag = await createTag(server);
    expect(onlyError(await server.gql(DELETE_CATEGORY, { id: tag.id })).extensions?.code).toBe('NOT_FOUND');
    expect((await server.gqlOk(TAG, { id: tag.id })).eventTag).not.toBeNull();
  });
});

describe('count', () => {
  it('counts only published events', async () => {
    const category = await createCategory(server);
    const tag = await createTag(server);
    const terms = { categories: [category.id], tags: [tag.id] };
    await eventWith(terms);
    await eventWith(terms);
    await eventWith(terms, { status: 'DRAFT' });
    await eventWith(terms, { status: 'PENDING' });
    const trashed = await eventWith(terms);
    await server.gqlOk(`mutation ($id: ID!) { deleteEvent(id: $id) { id: databaseId } }`, { id: trashed.id });
    expect((await server.gqlOk(CATEGORY, { id: category.id })).eventCategory.count).toBe(2);
    expect((await server.gqlOk(TAG, { id: tag.id })).eventTag.count).toBe(2);
  });
});

describe('eventCategories and eventTags (lists)', () => {
  it('hide terms no published event carries unless hideEmpty is false', async () => {
    const token = unique('he');
    const used = await createCategory(server, { name: `${token} used` });
    const draftOnly = await createCategory(server, { name: `${token} draft only` });
    const unused = await createCategory(server, { name: `${token} unused` });
    await eventWith({ categories: [used.id] });
    await eventWith({ categories: [draftOnly.id] }, { status: 'DRAFT' });
    expect(await categoryIds({ search: token })).toEqual([used.id]);
    expect((await categoryIds({ search: token, hideEmpty: false })).sort()).toEqual(
      [used.id, draftOnly.id, unused.id].sort(),
    );

    const tagToken = unique('het');
    const usedTag = await createTag(server, { name: `${tagToken} used` });
    await createTag(server, { name: `${tagToken} unused` });
    await eventWith({ tags: [usedTag.id] });
    expect(await tagIds({ search: tagToken })).toEqual([usedTag.id]);
    expect(await tagIds({ search: tagToken, hideEmpty: false })).toHaveLength(2);
  });

  it('search over name or slug, case-insensitively', async () => {
    const token = unique('srch').toLowerCase();
    const byName = await createTag(server, { name: `Big ${token.toUpperCase()} Day` });
    const bySlug = await createTag(server, { name: unique('Other'), slug: `slug-${token}` });
    await createTag(server);
    expect((await tagIds({ search: token, hideEmpty: false })).sort()).toEqual([byName.id, bySlug.id].sort());
  });

  it('search for % and _ as plain characters', async () => {
    const token = unique('pc');
    const percent = await createTag(server, { name: `${token} 50% off` });
    await createTag(server, { name: `${token} 50 off` });
    expect(await tagIds({ search: `${token} 50%`, hideEmpty: false })).toEqual([percent.id]);
    expect(await tagIds({ search: `${token}_`, hideEmpty: false })).toEqual([]);
  });

  it('refuse a blank search or slug', async () => {
    expectInputError(await server.gql(TAGS, { search: ' ' }), 'search');
    expectInputError(await server.gql(CATEGORIES, { slug: '' }), 'slug');
  });

  it('include only the IDs given and exclude the IDs given', async () => {
    const token = unique('inc');
    const a = await createCategory(server, { name: `${token} a` });
    const b = await createCategory(server, { name: `${token} b` });
    const c = await createCategory(server, { name: `${token} c` });
    expect(await categoryIds({ include: [c.id, a.id], hideEmpty: false })).toEqual([a.id, c.id]);
    expect(await categoryIds({ search: token, exclude: [b.id], hideEmpty: false })).toEqual([a.id, c.id]);
  });

  it('refuse unknown IDs in include and exclude, and IDs of the other taxonomy', async () => {
    const tag = await createTag(server);
    const error = expectInputError(
      await server.gql(CATEGORIES, { include: [999_998], exclude: [tag.id] }),
      'include',
      'exclude',
    );
    expect(error.extensions?.fields.include).toContain('999998');
    expectInputError(await server.gql(TAGS, { exclude: [999_999] }), 'exclude');
  });

  it('order by name ascending by default, or by ID, name, slug or count in either direction', async () => {
    const token = unique('ord');
    const b = await createTag(server, { name: `${token} b`, slug: `${token}-3` });
    const c = await createTag(server, { name: `${token} c`, slug: `${token}-1` });
    const a = await createTag(server, { name: `${token} a`, slug: `${token}-2` });
    for (let i = 0; i < 3; i++) await eventWith({ tags: [c.id] });
    await eventWith({ tags: [a.id] });
    await eventWith({ tags: [a.id, b.id] });
    // Unpublished events do not count: b would lead by count if they did.
    for (let i = 0; i < 3; i++) await eventWith({ tags: [b.id] }, { status: 'DRAFT' });

    const ids = (variables: Record<string, unknown>) => tagIds({ search: token, ...variables });
    expect(await ids({})).toEqual([a.id, b.id, c.id]);
    expect(await ids({ order: 'DESC' })).toEqual([c.id, b.id, a.id]);
    expect(await ids({ orderBy: 'ID' })).toEqual([b.id, c.id, a.id]);
    expect(await ids({ orderBy: 'ID', order: 'DESC' })).toEqual([a.id, c.id, b.id]);
    expect(await ids({ orderBy: 'NAME', order: 'ASC' })).toEqual([a.id, b.id, c.id]);
    expect(await ids({ orderBy: 'SLUG' })).toEqual([c.id, a.id, b.id]);
    expect(await ids({ orderBy: 'SLUG', order: 'DESC' })).toEqual([b.id, a.id, c.id]);
    expect(await ids({ orderBy: 'COUNT' })).toEqual([b.id, a.id, c.id]);
    expect(await ids({ orderBy: 'COUNT', order: 'DESC' })).toEqual([c.id, a.id, b.id]);
    const counts = (await server.gqlOk(TAGS, { search: token, orderBy: 'COUNT', order: 'DESC' })).eventTags.edges.map(
      (edge: any) => edge.node.count,
    );
    expect(counts).toEqual([3, 2, 1]);
  });

  it('order by name ignoring case and accents', async () => {
    const token = unique('nc');
    const zebra = await createTag(server, { name: `${token} Zebra` });
    const apple = await createTag(server, { name: `${token} apple` });
    const eclair = await createTag(server, { name: `${token} Éclair` });
    const mango = await createTag(server, { name: `${token} mango` });
    expect(await tagIds({ search: token, hideEmpty: false })).toEqual([apple.id, eclair.id, mango.id, zebra.id]);
    expect(await tagIds({ search: token, hideEmpty: false, order: 'DESC', first: 2 })).toEqual([zebra.id, mango.id]);
  });

  it('order by count with ties broken by ID, including empty terms, across pages', async () => {
    const token = unique('cnt');
    const one = await createCategory(server, { name: `${token} one` });
    const none = await createCategory(server, { name: `${token} none` });
    const alsoOne = await createCategory(server, { name: `${token} also one` });
    const two = await createCategory(server, { name: `${token} two` });
    await eventWith({ categories: [one.id, two.id, alsoOne.id] });
    await eventWith({ categories: [two.id] });
    const variables = { search: token, hideEmpty: false, orderBy: 'COUNT', order: 'ASC', first: 2 };
    const first = (await server.gqlOk(CATEGORIES, variables)).eventCategories;
    expect(first.totalCount).toBe(4);
    expect(first.edges.map((edge: any) => edge.node.id)).toEqual([none.id, one.id]);
    const second = (await server.gqlOk(CATEGORIES, { ...variables, after: first.pageInfo.endCursor })).eventCategories;
    expect(second.edges.map((edge: any) => edge.node.id)).toEqual([alsoOne.id, two.id]);
    expect(second.pageInfo.hasNextPage).toBe(false);
  });

  it('list only the children of a parent category', async () => {
    const parent = await createCategory(server);
    const child = await createCategory(server, { parentId: parent.id });
    const grandchild = await createCategory(server, { parentId: child.id });
    await eventWith({ categories: [child.id, grandchild.id] });
    expect(await categoryIds({ parent: parent.id })).toEqual([child.id]);
    expect(await categoryIds({ parent: child.id })).toEqual([grandchild.id]);
    expect(await categoryIds({ parent: grandchild.id, hideEmpty: false })).toEqual([]);
  });

  it('list only top-level categories for parent 0', async () => {
    const token = unique('top');
    const top = await createCategory(server, { name: `${token} top` });
    await createCategory(server, { name: `${token} child`, parentId: top.id });
    expect(await categoryIds({ search: token, parent: 0, hideEmpty: false })).toEqual([top.id]);
  });

  it('refuse an unknown parent', async () => {
    expectInputError(await server.gql(CATEGORIES, { parent: 999_999 }), 'parent');
  });

  it('list only the terms of an event', async () => {
    const [a, b, other] = [await createTag(server), await createTag(server), await createTag(server)];
    const event = await eventWith({ tags: [a.id, b.id] });
    await eventWith({ tags: [other.id] });
    expect((await tagIds({ event: event.id })).sort()).toEqual([a.id, b.id].sort());
    const category = await createCategory(server);
    const withCategory = await eventWith({ categories: [category.id], tags: [a.id] });
    expect(await categoryIds({ event: withCategory.id })).toEqual([category.id]);
    expect(await tagIds({ event: withCategory.id })).toEqual([a.id]);
  });

  it('refuse an unknown event, naming `event`', async () => {
    const error = expectInputError(await server.gql(TAGS, { event: 999_999 }), 'event');
    expect(error.extensions?.fields.event).toContain('999999');
    expectInputError(await server.gql(CATEGORIES, { event: 999_999 }), 'event');
  });

  it('find a term by its exact slug', async () => {
    const slug = unique('exact').toLowerCase();
    const exact = await createCategory(server, { slug });
    await createCategory(server, { slug: `${slug}-longer` });
    expect(await categoryIds({ slug, hideEmpty: false })).toEqual([exact.id]);
    expect(await categoryIds({ slug: slug.slice(0, -1), hideEmpty: false })).toEqual([]);
  });

  it('page with first/after and count every match in totalCount', async () => {
    const token = unique('pg');
    const ids: number[] = [];
    for (const letter of ['a', 'b', 'c', 'd', 'e'])
      ids.push((await createTag(server, { name: `${token} ${letter}` })).id);
    const first = (await server.gqlOk(TAGS, { search: token, hideEmpty: false, first: 3 })).eventTags;
    expect(first.totalCount).toBe(5);
    expect(first.edges.map((edge: any) => edge.node.id)).toEqual(ids.slice(0, 3));
    expect(first.pageInfo.hasNextPage).toBe(true);
    const second = (
      await server.gqlOk(TAGS, { search: token, hideEmpty: false, first: 3, after: first.pageInfo.endCursor })
    ).eventTags;
    expect(second.edges.map((edge: any) => edge.node.id)).toEqual(ids.slice(3));
    expect(second.pageInfo.hasNextPage).toBe(false);
  });
});

describe('category relations', () => {
  it('answers the parent and the children, children by name', async () => {
    const parent = await createCategory(server, {}, 'name');
    const zed = await createCategory(server, { name: `Zed ${unique('z')}`, parentId: parent.id }, 'name');
    const alpha = await createCategory(server, { name: `Alpha ${unique('a')}`, parentId: parent.id }, 'name');
    const data = await server.gqlOk(CATEGORY, { id: parent.id });
    expect(data.eventCategory.children).toEqual(
      childEdges({ id: alpha.id, name: alpha.name }, { id: zed.id, name: zed.name }),
    );
    expect((await server.gqlOk(CATEGORY, { id: zed.id })).eventCategory.parent).toEqual({
      id: parent.id,
      name: parent.name,
    });
  });
});

describe('term lists name records by global or database IDs (issue 29, point 3)', () => {
  const LIST = `query ($includeIds: [ID!], $excludeIds: [ID!], $parentId: ID, $eventId: ID, $include: [Int!]) {
    categories: eventCategories(includeIds: $includeIds, excludeIds: $excludeIds, parentId: $parentId, eventId: $eventId,
      include: $include, hideEmpty: false, first: 100) { nodes { name } }
  }`;
  const TAGS = `query ($eventId: ID, $includeIds: [ID!]) {
    tags: eventTags(eventId: $eventId, includeIds: $includeIds, hideEmpty: false, first: 100) { nodes { name } }
  }`;
  let parent: { id: number; globalId: string };
  let child: { id: number; globalId: string };
  let tag: { id: number; globalId: string };
  let event: { id: number; globalId: string };
  const names = async (variables: Record<string, unknown>) =>
    ((await server.gqlOk(LIST, variables)).categories.nodes as Array<{ name: string }>).map((node) => node.name).sort();

  beforeAll(async () => {
    parent = await createCategory(server, { name: unique('Parent') });
    child = await createCategory(server, { name: unique('Child'), parentId: parent.id });
    tag = await createTag(server, { name: unique('Tagged') });
    event = await createEvent(server, { categories: [String(child.id)], tags: [String(tag.id)] });
  });

  it('takes global IDs, and database IDs as text, in includeIds, excludeIds, parentId and eventId', async () => {
    const [parentName, childName] = [
      (await server.gqlOk(CATEGORY, { id: parent.id })).eventCategory.name,
      (await server.gqlOk(CATEGORY, { id: child.id })).eventCategory.name,
    ];
    expect(await names({ includeIds: [parent.globalId, String(child.id)] })).toEqual([childName, parentName].sort());
    expect(await names({ includeIds: [parent.globalId, child.globalId], excludeIds: [parent.globalId] })).toEqual([
      childName,
    ]);
    expect(await names({ parentId: parent.globalId })).toEqual([childName]);
    expect(await names({ eventId: event.globalId })).toEqual([childName]);
    expect((await names({ parentId: 0, includeIds: [parent.globalId, child.globalId] })).sort()).toEqual([parentName]);
    const tags = await server.gqlOk(TAGS, { eventId: event.globalId });
    expect(tags.tags.nodes).toHaveLength(1);
  });

  it('refuses another type’s ID, a malformed one, both forms of one reference, and an unknown one, naming the argument', async () => {
    const refused = async (variables: Record<string, unknown>, query = LIST) => {
      const result = await server.gql(query, variables);
      expect(result.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
      return result.errors?.[0]?.extensions?.fields;
    };
    expect(await refused({ includeIds: [child.globalId, tag.globalId] })).toEqual({
      'includeIds.1': 'is the ID of an EventTag, not of an EventCategory',
    });
    expect(await refused({ eventId: 'not-an-id' })).toEqual({
      eventId: 'must be a global ID (from an `id` field) or a numeric database ID',
    });
    expect(await refused({ includeIds: [child.globalId], include: [child.id] })).toEqual({
      includeIds: 'give `includeIds` or `include`, not both',
    });
    expect(await refused({ includeIds: ['999999'] }, TAGS)).toEqual({ includeIds: 'no tag with ID 999999' });
  });
});
