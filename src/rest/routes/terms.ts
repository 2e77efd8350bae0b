import { PAGE_OFFSET } from '../../graphql/shared/connections.js';
import { invalidParams, type ErrorMapping } from '../errors.js';
import {
  RestCategoryByIdDocument,
  RestCategoryListDocument,
  RestCreateCategoryDocument,
  RestCreateTagDocument,
  RestDeleteCategoryDocument,
  RestDeleteTagDocument,
  RestTagByIdDocument,
  RestTagListDocument,
  RestUpdateCategoryDocument,
  RestUpdateTagDocument,
  type RestCategoryFragment,
  type RestTagFragment,
  type SortOrder,
  type TermInput,
  type TermOrderBy,
} from '../../read/operations/generated/graphql.js';
import {
  CREATABLE,
  DELETABLE,
  EDITABLE,
  endpoint,
  READABLE,
  type RestCall,
  type RestReply,
  type RouteDefinition,
} from '../route.js';
import { termToTec, type TaxonomyRoute } from '../../read/serialize.js';
import { pageVariables } from '../../graphql/shared/connections.js';
import {
  FieldMap,
  idPathParam,
  pageParam,
  perPageParam,
  totalPages,
  type ParamDeclaration,
  type ParamValues,
} from '../params.js';

// `/categories` and `/tags`: one implementation parametrised by taxonomy. Categories are hierarchical and take a
// `parent`; tags do not. The envelope, paging and write semantics follow TEC's Term_Archive_Base / Term_Single_Base,
// which wrap WordPress core's terms controller (docs/rest-compatibility.md).

type Term = RestCategoryFragment | RestTagFragment;

/** `orderby` values (core get_terms names) → the GraphQL ordering. Anything else is refused. */
const ORDER_BY: Record<string, TermOrderBy> = {
  id: 'ID',
  term_id: 'ID',
  name: 'NAME',
  slug: 'SLUG',
  description: 'DESCRIPTION',
  count: 'COUNT',
  parent: 'PARENT',
  // Every term's group is 0 here, and `none` asks for no particular order: both read as creation (ID) order.
  term_group: 'ID',
  none: 'ID',
};

const listParamsBase = {
  page: pageParam,
  per_page: perPageParam,
  search: { type: 'string', nonEmpty: true, description: 'terms.search' },
  exclude: { type: 'list', items: 'integer', positive: true, description: 'terms.exclude' },
  include: { type: 'list', items: 'integer', positive: true, description: 'terms.include' },
  order: { type: 'string', nonEmpty: true, enum: ['asc', 'desc'], description: 'terms.order' },
  orderby: { type: 'string', nonEmpty: true, enum: Object.keys(ORDER_BY), description: 'terms.orderby' },
  hide_empty: { type: 'boolean', default: true, description: 'terms.hide_empty' },
} satisfies ParamDeclaration;

const listParamsTail = {
  post: { type: 'integer', min: 1, description: 'terms.post' },
  event: { type: 'integer', min: 1, description: 'terms.event' },
  slug: { type: 'string', nonEmpty: true, description: 'terms.slug' },
} satisfies ParamDeclaration;

const parentParam = { type: 'integer', min: 1, description: 'terms.parent' } as const;

/** In TEC's order: page, per_page, search, exclude, include, order, orderby, hide_empty, parent, post, event, slug. */
const categoryListParams = { ...listParamsBase, parent: parentParam, ...listParamsTail } satisfies ParamDeclaration;
const tagListParams = { ...listParamsBase, ...listParamsTail } satisfies ParamDeclaration;

const categoryWriteParams = {
  name: { type: 'string', nonEmpty: true, description: 'term.name' },
  description: { type: 'string', nonEmpty: true, description: 'term.description' },
  slug: { type: 'string', nonEmpty: true, description: 'term.slug' },
  parent: { type: 'integer', min: 1, description: 'term.parent' },
} satisfies ParamDeclaration;
const { parent: _noParent, ...tagWriteParams } = categoryWriteParams;

/** REST term fields → GraphQL TermInput fields (drives input building and error naming). */
const TERM_FIELDS = new FieldMap({ name: 'name', description: 'description', slug: 'slug', parent: 'parentId' });

type ListParams = ParamValues<typeof categoryListParams>;

interface ListVariables {
  search?: string;
  include?: number[];
  exclude?: number[];
  order?: SortOrder;
  orderBy?: TermOrderBy;
  hideEmpty?: boolean;
  parent?: number;
  event?: number;
  slug?: string;
  first: number;
  /** A page's offset, for the operation's root value (pageVariables). */
  [PAGE_OFFSET]?: number;
}

/** What differs between the two taxonomies: their GraphQL documents and their envelope key. */
interface Taxonomy {
  route: TaxonomyRoute;
  list(
    call: RestCall<ParamDeclaration>,
    variables: ListVariables,
    errors: ErrorMapping,
  ): Promise<{ totalCount: number; terms: Term[] }>;
  byId(call: RestCall<ParamDeclaration>, id: number): Promise<Term | null>;
  create(call: RestCall<ParamDeclaration>, input: TermInput, errors: ErrorMapping): Promise<Term>;
  update(call: RestCall<ParamDeclaration>, id: number, input: TermInput, errors: ErrorMapping): Promise<Term>;
  remove(call: RestCall<ParamDeclaration>, id: number, errors: ErrorMapping): Promise<Term>;
}

const CATEGORIES: Taxonomy = {
  route: 'categories',
  async list(call, variables, errors) {
    const { eventCategories } = await call.run(RestCategoryListDocument, variables, errors);
    return { totalCount: eventCategories.totalCount, terms: eventCategories.edges.map((edge) => edge.node) };
  },
  byId: async (call, id) => (await call.run(RestCategoryByIdDocument, { id })).eventCategory,
  create: async (call, input, errors) =>
    (await call.run(RestCreateCategoryDocument, { input }, errors)).createEventCategory,
  update: async (call, id, input, errors) =>
    (await call.run(RestUpdateCategoryDocument, { id, input }, errors)).updateEventCategory,
  remove: async (call, id, errors) => (await call.run(RestDeleteCategoryDocument, { id }, errors)).deleteEventCategory,
};

const TAGS: Taxonomy = {
  route: 'tags',
  async list(call, { parent: _parent, ...variables }, errors) {
    const { eventTags } = await call.run(RestTagListDocument, variables, errors);
    return { totalCount: eventTags.totalCount, terms: eventTags.edges.map((edge) => edge.node) };
  },
  byId: async (call, id) => (await call.run(RestTagByIdDocument, { id })).eventTag,
  create: async (call, input, errors) => (await call.run(RestCreateTagDocument, { input }, errors)).createEventTag,
  update: async (call, id, input, errors) =>
    (await call.run(RestUpdateTagDocument, { id, input }, errors)).updateEventTag,
  remove: async (call, id, errors) => (await call.run(RestDeleteTagDocument, { id }, errors)).deleteEventTag,
};

/** Drops absent values: a top-level GraphQL variable must be left out, not sent as undefined. */
function defined<T extends object>(record: T): T {
  return Object.fromEntries(Object.entries(record).filter(([, value]) => value !== undefined)) as T;
}

const unknownId = () => invalidParams({ id: 'Invalid parameter.' });

/** Write errors: GraphQL input names back to REST names; an unknown term is an invalid `id` (400), as in WordPress. */
const writeErrors: ErrorMapping = { fields: TERM_FIELDS.errorFields, notFound: unknownId };

async function listTerms(taxonomy: Taxonomy, call: RestCall<ParamDeclaration>): Promise<RestReply> {
  const params = call.params as ListParams;
  const page = params.page!;
  const perPage = params.per_page!;
  // `event` is an alias of `post` and wins when both are sent.
  const eventParam = call.sent.has('event') ? 'event' : 'post';
  // The page stays out of `defined`, which keeps string keys only (pageVariables' offset is under a symbol).
  const variables: ListVariables = {
    ...defined<Omit<ListVariables, 'first' | typeof PAGE_OFFSET>>({
      search: params.search,
      include: params.include,
      exclude: params.exclude,
      order: params.order ? (params.order.toUpperCase() as SortOrder) : undefined,
      orderBy: params.orderby ? ORDER_BY[params.orderby] : undefined,
      hideEmpty: params.hide_empty,
      parent: params.parent,
      event: params.event ?? params.post,
      slug: params.slug,
    }),
    ...pageVariables(page, perPage),
  };
  if (params.event !== undefined && params.post !== undefined && params.post !== params.event) {
    // Both are validated as in TEC (each must be an event) although only `event` filters.
    await taxonomy.list(call, { event: params.post, hideEmpty: false, first: 1 }, { fields: { eventId: 'post' } });
  }
  const { totalCount: total, terms } = await taxonomy.list(call, variables, {
    fields: { eventId: eventParam, includeIds: 'include', excludeIds: 'exclude', parentId: 'parent' },
  });
  const pages = totalPages(total, perPage);
  // The base URL never carries the query; next/previous carry only `page` (TEC's Term_Archive_Base).
  const base = `${call.urls.api}/${taxonomy.route}/`;
  return {
    body: {
      rest_url: base,
      total,
      total_pages: pages,
      [taxonomy.route]: terms.map((term) => termToTec(call.urls, taxonomy.route, term)),
      ...(page < pages ? { next_rest_url: `${base}?page=${page + 1}` } : {}),
      ...(page > 1 ? { previous_rest_url: page === 2 ? base : `${base}?page=${page - 1}` } : {}),
    },
    headers: { 'X-TEC-Total': String(total), 'X-TEC-TotalPages': String(pages) },
  };
}

function termInput(call: RestCall<ParamDeclaration>): TermInput {
  return TERM_FIELDS.input(call.params, call.sent) as TermInput;
}

function routesFor(taxonomy: Taxonomy, listParams: ParamDeclaration, writeParams: ParamDeclaration): RouteDefinition[] {
  return [
    {
      pattern: `/${taxonomy.route}`,
      endpoints: [
        endpoint({ methods: READABLE, params: listParams, handle: (call) => listTerms(taxonomy, call) }),
        endpoint({
          methods: CREATABLE,
          params: { ...writeParams, name: { ...(writeParams.name as ParamDeclaration[string]), required: true } },
          async handle(call) {
            const term = await taxonomy.create(call, termInput(call), writeErrors);
            return {
              status: 201,
              body: termToTec(call.urls, taxonomy.route, term),
              headers: { Location: `${call.urls.api}/${taxonomy.route}/${term.id}` },
            };
          },
        }),
      ],
    },
    {
      pattern: `/${taxonomy.route}/(?P<id>\\d+)`,
      endpoints: [
        endpoint({
          methods: READABLE,
          params: { id: idPathParam },
          async handle(call) {
            const term = await taxonomy.byId(call, call.params.id!);
            if (!term) throw unknownId();
            return { body: termToTec(call.urls, taxonomy.route, term) };
          },
        }),
        endpoint({
          methods: EDITABLE,
          params: { id: idPathParam, ...writeParams },
          async handle(call) {
            const term = await taxonomy.update(call, call.params.id as number, termInput(call), writeErrors);
            return { body: termToTec(call.urls, taxonomy.route, term) };
          },
        }),
        endpoint({
          methods: DELETABLE,
          params: { id: idPathParam },
          async handle(call) {
            // Terms have no trash: always a permanent delete, answered with the term as it was. It is read first, as
            // WordPress prepares `previous` before deleting, so that `count` is the count before the links went away.
            const before = await taxonomy.byId(call, call.params.id!);
            if (!before) throw unknownId();
            await taxonomy.remove(call, before.id, writeErrors);
            return { body: termToTec(call.urls, taxonomy.route, before) };
          },
        }),
      ],
    },
  ];
}

export const categoryRoutes = routesFor(CATEGORIES, categoryListParams, categoryWriteParams);
export const tagRoutes = routesFor(TAGS, tagListParams, tagWriteParams);
export const termRoutes: RouteDefinition[] = [...categoryRoutes, ...tagRoutes];
