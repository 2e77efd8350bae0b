import { builder, type Context } from '../builder.js';
import { pageRecordOf, pageUrl, type Taxonomy, termPageUrl } from '../../urls.js';
import type { PrismaFieldBuilder } from './field-builders.js';
import { NodeInterface, readNodeOf, type NodeTypeName } from './node.js';

// WPGraphQL's way to address a record by its public page: `uri` (the page's path below SITE_URL) and `link` (its
// absolute URL, the REST `url`) on every record that has a page, and `nodeByUri(uri:)` to read the record a page
// shows, as headless front ends route their pages.

/** The field builder of a type with a `slug` column; the Term model's describes each (events, venues … too). */
const asSluggedFieldBuilder = (t: object) => t as PrismaFieldBuilder<'Term'>;

export type PagedKind = 'event' | 'venue' | 'organizer' | Taxonomy;

/** The public page of a record of this kind with this slug (the REST `url`). */
export function linkOf(ctx: Context, kind: PagedKind, slug: string): string {
  return kind === 'category' || kind === 'tag'
    ? termPageUrl(ctx.config.siteUrl, kind, slug)
    : pageUrl(ctx.config.siteUrl, kind, slug);
}

/** That page's path below SITE_URL (`/event/<slug>/`). */
export function uriOf(ctx: Context, kind: PagedKind, slug: string): string {
  return linkOf(ctx, kind, slug).slice(ctx.config.siteUrl.length);
}

const NODE_TYPES = { event: 'Event', venue: 'Venue', organizer: 'Organizer' } as const;

const NOUNS: Record<PagedKind, string> = {
  event: 'event',
  venue: 'venue',
  organizer: 'organizer',
  category: 'category',
  tag: 'tag',
};

/** The descriptions of `uri` and `link` on a type whose records are of this kind. */
function uriDescriptions(kind: PagedKind) {
  const noun = NOUNS[kind];
  return {
    uri: `The path of the ${noun}'s public page below SITE_URL (\`${uriExample(kind)}\`), as WPGraphQL's \`uri\`; \`nodeByUri\` reads it back.`,
    link: `The absolute URL of the ${noun}'s public page (REST \`url\`), as WPGraphQL's \`link\`.`,
  };
}

/**
 * `uri` and `link` for the fields of a type whose records are of this kind. `t` is that type's field builder; every
 * such model has a `slug` column, so the Venue builder's type describes them all (as in post-fields.ts).
 */
export function pageFields(t: object, kind: PagedKind) {
  const fields = asSluggedFieldBuilder(t);
  const descriptions = uriDescriptions(kind);
  return {
    uri: fields.string({
      description: descriptions.uri,
      select: { slug: true },
      resolve: (record, _args, ctx) => uriOf(ctx, kind, record.slug),
    }),
    link: fields.string({
      description: descriptions.link,
      select: { slug: true },
      resolve: (record, _args, ctx) => linkOf(ctx, kind, record.slug),
    }),
  };
}

function uriExample(kind: PagedKind): string {
  return kind === 'category' ? '/events/category/<slug>/' : `/${kind}/<slug>/`;
}

/** The path below SITE_URL that a `uri` argument names: a path, or an absolute URL on SITE_URL; null otherwise. */
function pathOf(ctx: Context, uri: string): string | null {
  const site = new URL(ctx.config.siteUrl);
  const base = site.pathname.replace(/\/+$/, '');
  const belowBase = (path: string) => (base && path.startsWith(`${base}/`) ? path.slice(base.length) : null);
  // A path (WPGraphQL's `uri`) is below SITE_URL; SITE_URL's own path may lead it, as in a link's path.
  if (uri.startsWith('/') && !uri.startsWith('//')) {
    const path = new URL(uri, site.origin).pathname;
    return belowBase(path) ?? path;
  }
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    return null;
  }
  if (url.origin !== site.origin) return null;
  return base ? belowBase(url.pathname) : url.pathname;
}

/** The database ID of the record a page path shows, with the Node type it is read as; null when none. */
async function recordAt(ctx: Context, path: string): Promise<{ typename: NodeTypeName; id: number } | null> {
  const page = pageRecordOf(path);
  if (!page || page.slug === '') return null;
  const where = { where: { slug: page.slug }, select: { id: true } };
  if (page.kind === 'term') {
    const term = await ctx.db.term.findUnique({
      where: { taxonomy_slug: { taxonomy: page.taxonomy, slug: page.slug } },
      select: { id: true },
    });
    return term && { typename: page.taxonomy === 'category' ? 'EventCategory' : 'EventTag', id: term.id };
  }
  const found =
    page.kind === 'event'
      ? await ctx.db.event.findUnique(where)
      : page.kind === 'venue'
        ? await ctx.db.venue.findUnique(where)
        : await ctx.db.organizer.findUnique(where);
  return found && { typename: NODE_TYPES[page.kind], id: found.id };
}

builder.queryFields((t) => ({
  nodeByUri: t.field({
    type: NodeInterface,
    nullable: true,
    description:
      "The record whose public page this is (an event, venue, organizer, event category or tag), as WPGraphQL's " +
      '`nodeByUri`: a `uri` (`/event/<slug>/`) or a `link` on SITE_URL. Null when no record has that page; ' +
      'visibility is that of the record type’s own field.',
    args: {
      uri: t.arg.string({ required: true, description: 'A path below SITE_URL, or an absolute URL on it.' }),
    },
    resolve: async (_root, args, ctx, info) => {
      const path = pathOf(ctx, args.uri.trim());
      const record = path === null ? null : await recordAt(ctx, path);
      return record ? readNodeOf(ctx, info, record.typename, record.id) : null;
    },
  }),
}));
