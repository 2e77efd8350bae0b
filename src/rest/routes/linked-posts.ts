import { PAGE_OFFSET } from '../../graphql/shared/connections.js';
import { invalidParams, RestError, type ErrorMapping } from '../errors.js';
import type { PostStatus } from '../../read/operations/generated/graphql.js';
import { CREATABLE, DELETABLE, EDITABLE, endpoint, READABLE, type RestCall, type RouteDefinition } from '../route.js';
import type { SerializeOptions } from '../../read/serialize.js';
import type { RestUrls } from '../../urls.js';
import { pageVariables } from '../../graphql/shared/connections.js';
import {
  idPathParam,
  listStatuses,
  pageLinks,
  pageParam,
  perPageParam,
  slugPathParam,
  totalPages,
  type FieldMap,
  type ParamDeclaration,
} from '../params.js';

// Venues and organizers behave alike (TEC's "linked posts"): one set of routes, parameterised by the kind.

type AnyCall = RestCall<ParamDeclaration>;

/** What the list asks GraphQL for. */
export interface LinkedListVariables {
  search?: string;
  eventId?: number;
  hasEvents?: boolean;
  onlyWithUpcoming?: boolean;
  statuses?: PostStatus[];
  password?: string;
  first: number;
  /** The page's offset, for the operation's root value (pageVariables). */
  [PAGE_OFFSET]: number;
}

/** The GraphQL operations of one kind, each with the error mapping the route hands it. */
export interface LinkedOperations<R> {
  list(call: AnyCall, variables: LinkedListVariables, errors: ErrorMapping): Promise<{ total: number; records: R[] }>;
  byId(call: AnyCall, id: number, password: string | undefined, errors: ErrorMapping): Promise<R | null>;
  bySlug(call: AnyCall, slug: string, password: string | undefined, errors: ErrorMapping): Promise<R | null>;
  /** The existing record a create from this input would duplicate (input checked as create checks it). */
  create(call: AnyCall, input: Record<string, unknown>, errors: ErrorMapping): Promise<R>;
  update(call: AnyCall, id: number, input: Record<string, unknown>, errors: ErrorMapping): Promise<R>;
  remove(call: AnyCall, id: number, force: boolean, errors: ErrorMapping): Promise<R>;
}

/** What the routes read of a record besides what the serializer does. */
export interface LinkedRecord {
  id: number;
  status: string;
  isLocked: boolean;
}

export interface LinkedPostKind<R extends LinkedRecord> {
  /** The route segment and the list's key in the envelope. */
  plural: 'venues' | 'organizers';
  /** The prefix of the kind's error codes, and the name of its required create parameter. */
  singular: 'venue' | 'organizer';
  /** Write parameters in declaration order (none required; create requires the name parameter, `singular`). */
  writeParams: ParamDeclaration;
  /** REST write parameter → GraphQL input field. */
  fields: FieldMap;
  operations: LinkedOperations<R>;
  serialize(urls: RestUrls, record: R, options?: SerializeOptions): unknown;
  /** The record as readers it is locked for see it: every protected key blanked (docs/rest-compatibility.md). */
  serializeLocked(urls: RestUrls, record: R, options?: SerializeOptions): unknown;
}

/** The list parameters, in TEC's order; descriptions are keyed `<plural>.<name>`. */
export function linkedListParams(plural: 'venues' | 'organizers') {
  return {
    page: pageParam,
    per_page: perPageParam,
    search: { type: 'string', nonEmpty: true, description: `${plural}.search` },
    event: { type: 'integer', min: 1, description: `${plural}.event` },
    has_events: { type: 'boolean', description: `${plural}.has_events` },
    only_with_upcoming: { type: 'boolean', default: false, description: `${plural}.only_with_upcoming` },
    status: { type: 'list', items: 'string', description: `${plural}.status` },
    password: { type: 'string', description: 'post.password' },
  } satisfies ParamDeclaration;
}

type ListParams = ReturnType<typeof linkedListParams>;

const LIST_ERROR_FIELDS: Record<string, string> = {
  search: 'search',
  eventId: 'event',
  hasEvents: 'has_events',
  onlyWithUpcoming: 'only_with_upcoming',
  statuses: 'status',
};

const passwordParam = { type: 'string', description: 'post.password' } as const;
const forceParam = { type: 'boolean', default: false, description: 'post.force' } as const;

/** A record as this viewer sees it: a locked password-protected one with its protected fields blanked. */
export function linkedPostForReaders<R extends LinkedRecord>(
  kind: Pick<LinkedPostKind<R>, 'serialize' | 'serializeLocked'>,
  urls: RestUrls,
  record: R,
  options: SerializeOptions = {},
): unknown {
  return record.isLocked ? kind.serializeLocked(urls, record, options) : kind.serialize(urls, record, options);
}

/** The routes of one kind: archive and create, then single reads and writes by ID and by slug. */
export function linkedPostRoutes<R extends LinkedRecord>(kind: LinkedPostKind<R>): RouteDefinition[] {
  const { plural, singular, operations } = kind;
  const forReaders = (urls: RestUrls, record: R, options: SerializeOptions = {}) =>
    linkedPostForReaders(kind, urls, record, options);
  /** A record withheld from a reader: trashed or unpublished, both answered as TEC's `<kind>-not-accessible`. */
  const readErrors: ErrorMapping = { forbidden: () => RestError.of(`${singular}-not-accessible`) };
  /** On a write, a record the viewer may not see is one they may not change: 401 when anonymous, else 403. */
  const refusedWrite = (call: AnyCall): ErrorMapping => ({
    forbidden: () => RestError.of('rest_forbidden', { status: call.context.viewer.user ? 403 : 401 }),
  });
  const writeErrors: ErrorMapping = {
    fields: kind.fields.errorFields,
    alreadyTrashed: () => RestError.of(`${singular}-is-in-trash`),
  };
  const createParams = {
    ...kind.writeParams,
    [singular]: { ...kind.writeParams[singular]!, required: true },
  } as ParamDeclaration;

  async function list(call: RestCall<ListParams>) {
    const { params, sent } = call;
    const password = (params as { password?: string }).password;
    const { statuses, shown } = listStatuses(params.status, call.context);
    const page = params.page!;
    const perPage = params.per_page!;
    const { total, records } = await operations.list(
      call as unknown as AnyCall,
      {
        search: params.search,
        eventId: params.event,
        hasEvents: params.has_events,
        onlyWithUpcoming: params.only_with_upcoming,
        statuses,
        password,
        ...pageVariables(page, perPage),
      },
      { fields: LIST_ERROR_FIELDS },
    );
    const pages = totalPages(total, perPage);
    if (page > 1 && page > pages) throw RestError.of(`${singular}-archive-page-not-found`);
    // TEC maps its effective query back to public names; `search` becomes an ID list and `only_with_upcoming` is
    // dropped, so neither appears.
    const args: [string, unknown][] = [
      ['page', page],
      ['per_page', perPage],
      ...(sent.has('event') ? [['event', params.event] as [string, unknown]] : []),
      ...(sent.has('has_events') ? [['has_events', params.has_events] as [string, unknown]] : []),
      ['status', shown],
    ];
    return {
      body: {
        [plural]: records.map((record) => forReaders(call.urls, record)),
        ...pageLinks(`${call.urls.api}/${plural}/`, args, page, pages),
        total,
        total_pages: pages,
      },
      headers: { 'X-TEC-Total': String(total), 'X-TEC-TotalPages': String(pages) },
    };
  }

  /** The record a single route addresses; an unknown ID or slug is a 400 naming that parameter, as in TEC. */
  async function addressed(call: AnyCall, by: 'id' | 'slug', errors: ErrorMapping): Promise<R> {
    const params = call.params as { id?: number; slug?: string; password?: string };
    if (by === 'slug') {
      const record = await operations.bySlug(call, params.slug!, params.password, errors);
      if (!record) throw invalidParams({ slug: 'Invalid parameter.' });
      return record;
    }
    const record = await operations.byId(call, params.id!, params.password, errors);
    if (!record) throw invalidParams({ id: 'Invalid parameter.' });
    return record;
  }

  /** GET, DELETE, then the edit methods: TEC's registration order, which `Allow` and the index show. */
  function singleEndpoints(addressParam: ParamDeclaration) {
    const by = 'slug' in addressParam ? 'slug' : 'id';
    // The path names the record: on the by-slug route a different `slug` in the body is refused (src/rest/router.ts).
    const writeParams = Object.fromEntries(
      Object.entries(kind.writeParams).filter(([name]) => !(name in addressParam)),
    );
    const writesSent = (sent: ReadonlySet<string>) => new Set([...sent].filter((name) => !(name in addressParam)));
    return [
      endpoint({
        methods: READABLE,
        params: { ...addressParam },
        async handle(call) {
          const record = await addressed(call, by, readErrors);
          return { body: forReaders(call.urls, record, { single: true }) };
        },
      }),
      endpoint({
        methods: DELETABLE,
        params: { ...addressParam, force: forceParam },
        async handle(call) {
          const { id } = await addressed(call, by, refusedWrite(call));
          const removed = await operations.remove(call, id, call.params.force === true, writeErrors);
          return { body: kind.serialize(call.urls, removed) };
        },
      }),
      endpoint({
        methods: EDITABLE,
        params: { ...addressParam, ...writeParams },
        async handle(call) {
          const { id } = await addressed(call, by, refusedWrite(call));
          const input = kind.fields.input(call.params, writesSent(call.sent));
          const updated = await operations.update(call, id, input, writeErrors);
          return { body: kind.serialize(call.urls, updated) };
        },
      }),
    ];
  }

  return [
    {
      pattern: `/${plural}`,
      endpoints: [
        endpoint({ methods: READABLE, params: linkedListParams(plural), handle: list }),
        endpoint({
          methods: CREATABLE,
          params: createParams,
          async handle(call) {
            const input = kind.fields.input(call.params, call.sent);
            // Duplicate avoidance, as TEC does by default: an existing match is answered instead, still with 201 (the
            // create document asks for it: atomic, so concurrent identical creates make one record). The match is
            // answered as this viewer sees it: a password-protected one stays blanked unless they may edit it.
            const created = await operations.create(call, input, writeErrors);
            return { status: 201, body: forReaders(call.urls, created) };
          },
        }),
      ],
    },
    { pattern: `/${plural}/(?P<id>\\d+)`, endpoints: singleEndpoints({ id: idPathParam, password: passwordParam }) },
    {
      pattern: `/${plural}/by-slug/(?P<slug>[^/]+)`,
      endpoints: singleEndpoints({ slug: slugPathParam, password: passwordParam }),
    },
  ];
}
