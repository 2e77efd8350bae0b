import type { Db, DbTransaction } from '../../db/client.js';
import { fetchImageFacts, ImageFetchError } from '../../images/fetch.js';
import { extensionOf, type ImageFacts } from '../../images/facts.js';
import type { Media } from '../../db/generated/prisma/client.js';
import { builder, type Context, loaderOf } from '../builder.js';
import { FieldErrors } from '../errors.js';
import { isStorableId } from '../shared/ids.js';
import { databaseIdField, globalIdField, NodeInterface, registerNodeReader } from '../shared/node.js';
import { assertMayGiveImageUrl } from '../shared/post-permissions.js';
import { isHttpUrl } from '../shared/validate.js';

const unknownOnOldRecords = 'null for an image kept before images were fetched, or imported without it';

export const MediaType = builder.prismaObject('Media', {
  description:
    'An image known to the service. Every image URL given to a record is fetched, checked and kept as one of these.',
  interfaces: [NodeInterface],
  fields: (t) => ({
    id: t.globalID(globalIdField('Media')),
    databaseId: t.exposeInt('id', databaseIdField('Media')),
    url: t.exposeString('url', {
      description: 'Where the image is (the URL it was given by; the service keeps no copy).',
    }),
    extension: t.string({
      description:
        'The file extension (`jpg`): the URL’s when it fits the image’s type, else the type’s usual one; empty when neither is known.',
      resolve: (media) => extensionOf(media.url, media.mimeType),
    }),
    mimeType: t.exposeString('mimeType', {
      nullable: true,
      description: `The image’s type as read from its bytes (\`image/png\`); ${unknownOnOldRecords}.`,
    }),
    width: t.exposeInt('width', { nullable: true, description: `Width in pixels; ${unknownOnOldRecords}.` }),
    height: t.exposeInt('height', { nullable: true, description: `Height in pixels; ${unknownOnOldRecords}.` }),
    filesize: t.exposeInt('filesize', { nullable: true, description: `Size in bytes; ${unknownOnOldRecords}.` }),
  }),
});

registerNodeReader('Media', (ctx, id, query) => ctx.db.media.findUnique({ ...query, where: { id } }));

/**
 * The image `imageId` names, read with every other image the request asks for until its linked records are loaded
 * (src/graphql/relation-loads.ts): a page's event, venue and organizer images are one statement (Prisma's includes
 * would read them in one statement per type).
 */
export function imageOf(ctx: Context, imageId: number | null): Promise<Media | null> | null {
  if (imageId === null) return null;
  return loaderOf<number, Media | null>(
    ctx,
    'Media',
    async (ids) => {
      const rows = await ctx.db.media.findMany({ where: { id: { in: [...ids] } } });
      const byId = new Map(rows.map((row) => [row.id, row]));
      return ids.map((id) => byId.get(id) ?? null);
    },
    { batchScheduleFn: (dispatch) => ctx.relationLoads.afterSettled(dispatch) },
  ).load(imageId);
}

/** An image URL not known yet: fetched (`facts`) after the write is checked and authorized, before it is written. */
export interface NewImage {
  url: string;
  /** The input field that gave it (`image`, `venues.0.image`), named when it is refused. */
  field: string;
  facts?: ImageFacts;
}

export type ImageRef = { id: number } | NewImage;

/**
 * Reads an `image` input without writing or fetching: the ID of a known image, a URL already known (its image is
 * reused as it is), or a new http(s) URL. An empty string clears the image (null); undefined leaves it as it is.
 */
export async function readImageInput(
  ctx: Context,
  errors: FieldErrors,
  field: string,
  value: string | null | undefined,
): Promise<ImageRef | null | undefined> {
  if (value === undefined) return undefined;
  if (value === null || value.trim() === '') return null;
  const text = value.trim();
  if (/^\d+$/.test(text)) {
    const id = Number(text);
    const media = isStorableId(id) ? await ctx.db.media.findUnique({ where: { id }, select: { id: true } }) : null;
    if (!media) errors.add(field, `no image with ID ${text}`);
    return { id };
  }
  if (!isHttpUrl(text)) {
    errors.add(field, 'must be the ID of a known image or an http(s) URL');
    return { url: text, field };
  }
  const known = await ctx.db.media.findUnique({ where: { url: text }, select: { id: true } });
  return known ? { id: known.id } : { url: text, field };
}

/**
 * Fetches the new images of a checked, authorized write (each URL once, at the same time) and keeps their facts; refuses
 * the write, naming each field, when one cannot be fetched or is no image. Nothing is written before this.
 */
export async function fetchNewImages(ctx: Context, refs: Array<ImageRef | null | undefined>): Promise<void> {
  const pending = refs.filter((ref): ref is NewImage => !!ref && 'url' in ref && !ref.facts);
  if (pending.length === 0) return;
  for (const image of pending) assertMayGiveImageUrl(ctx, image.field);
  const errors = new FieldErrors();
  const fetches = new Map<string, Promise<ImageFacts | ImageFetchError>>();
  for (const { url } of pending) {
    if (!fetches.has(url))
      fetches.set(
        url,
        fetchImageFacts(url, ctx.config.imageFetch).catch((error: ImageFetchError) => error),
      );
  }
  for (const image of pending) {
    const outcome = await fetches.get(image.url)!;
    if (outcome instanceof ImageFetchError) errors.add(image.field, outcome.message);
    else image.facts = outcome;
  }
  errors.throwIfAny();
}

/** The media ID to store for a checked image input; a new URL (fetched by fetchNewImages) becomes a media record. */
export async function imageIdForWrite(
  db: DbTransaction,
  ref: ImageRef | null | undefined,
): Promise<number | null | undefined> {
  if (ref === undefined || ref === null) return ref;
  if ('id' in ref) return ref.id;
  if (!ref.facts) throw new Error(`the image ${ref.url} was not fetched before the write`);
  return rememberImage(db, ref.url, ref.facts);
}

/**
 * Keeps an image URL with facts known otherwise (an import's source, the seed's demo images), without fetching it;
 * a URL already known keeps its record as it is. Answers the media ID.
 */
export async function rememberImage(db: Db | DbTransaction, url: string, facts: Partial<ImageFacts>): Promise<number> {
  // A concurrent write of the same new URL made the record first: the upsert then reuses it.
  const media = await db.media.upsert({ where: { url }, create: { url, ...facts }, update: {}, select: { id: true } });
  return media.id;
}
