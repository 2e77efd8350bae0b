import { mayListOtherStatuses } from '../../graphql/access.js';
import type { Context } from '../../graphql/builder.js';
import { invalidParams } from '../errors.js';
import type { Param } from '../params.js';
import type { PostStatus } from '../../read/operations/generated/graphql.js';
import { graphqlStatus, POST_STATUSES } from '../../read/serialize/common.js';

/** Parameters several routes share, declared once. */
export const pageParam = { type: 'integer', min: 1, default: 1, description: 'page' } satisfies Param;
export const MAX_PER_PAGE = 50;
export const perPageParam = {
  type: 'integer',
  min: 1,
  clampTo: MAX_PER_PAGE,
  default: 10,
  description: 'per_page',
} satisfies Param;
/** A record's ID in a path. WordPress's `\d+` takes 0 too, which names no record: 404, like any unknown ID. */
export const idPathParam = { type: 'integer', min: 0, required: true, in: 'path', description: 'id' } satisfies Param;
export const slugPathParam = {
  type: 'string',
  nonEmpty: true,
  required: true,
  in: 'path',
  description: 'slug',
} satisfies Param;

export { POST_STATUSES, type RestPostStatus } from '../../read/serialize/common.js';

/**
 * The `status` filter of a list: registered statuses (or `any`), CSV or array. Who may list what is the GraphQL
 * layer's rule (mayListOtherStatuses), asked here only for `any`, which GraphQL has no word for; `shown` is the
 * effective value `rest_url` carries (`publish` for readers, `any` for writers).
 */
export function listStatuses(
  requested: readonly string[] | undefined,
  context: Context,
): { statuses?: PostStatus[]; shown: string } {
  const asked = (requested ?? []).map((status) => status.trim().toLowerCase()).filter((status) => status !== '');
  if (asked.some((status) => status !== 'any' && !(POST_STATUSES as readonly string[]).includes(status))) {
    throw invalidParams({ status: 'Invalid parameter.' });
  }
  const writer = mayListOtherStatuses(context.viewer.user);
  if (asked.length === 0 || asked.includes('any')) {
    if (asked.includes('any') && !writer) throw invalidParams({ status: 'Invalid parameter.' });
    return { shown: writer ? 'any' : 'publish' };
  }
  return { statuses: asked.map(graphqlStatus), shown: asked.join(',') };
}

export function totalPages(total: number, perPage: number): number {
  return total === 0 ? 0 : Math.ceil(total / perPage);
}

/** Maps REST names to GraphQL input names; the reverse map names REST parameters in errors. */
export class FieldMap {
  private readonly toRest: Record<string, string>;
  constructor(private readonly toGraphQL: Record<string, string>) {
    this.toRest = Object.fromEntries(Object.entries(toGraphQL).map(([rest, gql]) => [gql, rest]));
  }

  /** GraphQL field → REST parameter, for error mapping. */
  get errorFields(): Record<string, string> {
    return this.toRest;
  }

  /** The GraphQL input for the REST parameters that were sent. */
  input(values: Record<string, unknown>, sent: ReadonlySet<string>): Record<string, unknown> {
    const input: Record<string, unknown> = {};
    for (const [rest, gql] of Object.entries(this.toGraphQL)) {
      if (sent.has(rest) && values[rest] !== undefined)
        input[gql] = gql === 'status' ? graphqlStatus(String(values[rest])) : values[rest];
    }
    return input;
  }
}

/** A URL with the query written the way WordPress's add_query_arg leaves new values (not encoded). */
export function rawQueryUrl(base: string, args: [string, unknown][]): string {
  const parts = args.map(([key, value]) => `${key}=${String(value).replace(/[&#%]/g, encodeURIComponent)}`);
  return parts.length ? `${base}?${parts.join('&')}` : base;
}

/** A URL with the query form-encoded, as WordPress re-encodes values already in a URL. */
export function encodedQueryUrl(base: string, args: [string, unknown][]): string {
  const query = new URLSearchParams(args.map(([key, value]) => [key, String(value)])).toString();
  return query ? `${base}?${query}` : base;
}

/** `rest_url`, `next_rest_url` and `previous_rest_url` of a page, in TEC's manner. */
export function pageLinks(base: string, args: [string, unknown][], page: number, pages: number) {
  const withoutPage = args.filter(([key]) => key !== 'page');
  return {
    rest_url: rawQueryUrl(base, args),
    ...(page < pages ? { next_rest_url: encodedQueryUrl(base, [...withoutPage, ['page', page + 1]]) } : {}),
    ...(page > 1 && page - 1 <= pages
      ? { previous_rest_url: encodedQueryUrl(base, page === 2 ? withoutPage : [...withoutPage, ['page', page - 1]]) }
      : {}),
  };
}
