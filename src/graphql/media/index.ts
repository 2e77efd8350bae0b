import { builder } from '../builder.js';
import type { Context } from '../context.js';
import type { DbTransaction } from '../../db/client.js';
import type { FieldErrors } from '../errors.js';
import { isStorableId } from '../shared/ids.js';
import { databaseIdField, globalIdField, NodeInterface, registerNodeReader } from '../shared/node.js';
import { isHttpUrl } from '../shared/validate.js';

export const MediaType = builder.prismaObject('Media', {
  description: 'An image known to the service. Every image URL given to a record is kept as one of these.',
  interfaces: [NodeInterface],
  fields: (t) => ({
    id: t.globalID(globalIdField('Media')),
    databaseId: t.exposeInt('id', databaseIdField('Media')),
    url: t.exposeString('url', { description: 'Where the image is.' }),
    extension: t.string({
      description: 'The file extension taken from the URL path (`jpg`), or empty.',
      resolve: (media) => /\.([A-Za-z0-9]{1,5})$/.exec(new URL(media.url).pathname)?.[1]?.toLowerCase() ?? '',
    }),
  }),
});

registerNodeReader('Media', (ctx, id, query) => ctx.db.media.findUnique({ ...query, where: { id } }));

export type ImageRef = { id: number } | { url: string };

/**
 * Reads an `image` input without writing: the ID of a known image, or an http(s) URL. An empty string clears the
 * image (null); undefined leaves it as it is.
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
  if (!isHttpUrl(text)) errors.add(field, 'must be the ID of a known image or an http(s) URL');
  return { url: text };
}

/** The media ID to store for a checked image input, keeping a new URL as a media record (reused when known). */
export async function imageIdForWrite(db: DbTransaction, ref: ImageRef | null | undefined): Promise<number | null | undefined> {
  if (ref === undefined || ref === null) return ref;
  if ('id' in ref) return ref.id;
  const media = await db.media.upsert({ where: { url: ref.url }, create: { url: ref.url }, update: {}, select: { id: true } });
  return media.id;
}
