import { DateTime } from 'luxon';
import { PostStatus } from '../../db/generated/prisma/enums.js';
import { NOT_A_DATE, parseDateInput, toWallClock, withinYears } from '../../time/dates.js';
import { builder, type Context } from '../builder.js';
import type { FieldErrors } from '../errors.js';
import { screamingCaseValues } from './enums.js';

/** WordPress post statuses; events, venues and organizers share them. */
export const PostStatusEnum = builder.enumType('PostStatus', {
  description: 'The WordPress post status of an event, venue or organizer.',
  values: screamingCaseValues(PostStatus, {
    publish: 'Published: anyone may read it.',
    future: 'Scheduled: published at its publication date.',
    draft: 'A draft: only those who may edit it see it.',
    pending: 'Waiting for review by someone who may publish.',
    private: 'Published for those who may read private records only.',
    trash: 'In the trash: gone for readers; a second delete (or `force`) removes it for good.',
  }),
});

export type PostStatusValue = (typeof PostStatus)[keyof typeof PostStatus];

/**
 * Descriptions of the fields venues and organizers share; events take those of slug, status, author, dates and
 * password from here too (and describe their title and content in events/type.ts).
 */
export function postFieldDescriptions(noun: 'event' | 'venue' | 'organizer') {
  const locked = `while the ${noun} is locked (\`isLocked\`)`;
  return {
    name: `The ${noun} name (plain text; REST \`${noun}\`); shown even ${locked}.`,
    slug: `The name in URLs (\`/${noun}/<slug>/\`), unique among ${noun}s; see \`${noun}BySlug\`.`,
    status: `The WordPress post status: who may see the ${noun}.`,
    authorId: `The database ID of the user who wrote the ${noun}; null when there is none (REST \`author\`, \`"0"\` then).`,
    author: `The user who wrote the ${noun}; null when there is none.`,
    publishedAt: `The publication date (REST \`date_utc\`); a \`FUTURE\` ${noun} is published then.`,
    modifiedAt: `When the ${noun} was last changed (REST \`modified_utc\`).`,
    modifiedLocal: `When the ${noun} was last changed, in the site time zone (REST \`modified\`).`,
    description: `The long description (HTML); empty when there is none or ${locked}.`,
    excerpt: `The short description (HTML); empty when there is none or ${locked}.`,
    website: `The ${noun}’s website URL; empty when there is none or ${locked}.`,
    phone: `The phone number, as entered; empty when there is none or ${locked}.`,
    image: `The featured image; null when there is none or ${locked}.`,
    hasPassword: `Whether the ${noun} is password-protected (the password itself is never returned).`,
  };
}

/** Descriptions of the input fields events, venues and organizers share. */
export const POST_INPUT_DESCRIPTIONS = {
  description: 'The long description (HTML, reduced to what WordPress allows in post content).',
  excerpt: 'The short description shown in lists (HTML, reduced like `description`).',
  status:
    'The post status. On create it defaults to `PUBLISH` for users who may publish and to `DRAFT` for the others, ' +
    'whose `PUBLISH`, `FUTURE` or `PRIVATE` becomes `PENDING`.',
  authorId:
    'The database ID of the author user; the writer by default on create, and null on update removes the author. Another ' +
    'user’s ID needs an editor or administrator.',
  website: 'An http(s) URL; empty to remove.',
  password: 'Protects the content (readers then need it as the `password` argument); empty removes the protection.',
} as const;

export interface PublicationInput {
  date?: string | null;
  dateUtc?: string | null;
}

export interface PublicationColumns {
  publishedAt: Date;
  publishedLocal: string;
}

/** The publication date from `date` (site time zone) or `dateUtc`; undefined when neither was sent. */
export function publicationFromInput(
  ctx: Context,
  input: PublicationInput,
  errors: FieldErrors,
): PublicationColumns | undefined {
  const zone = ctx.config.siteTimezone;
  const now = DateTime.fromJSDate(ctx.now());
  let moment: DateTime | null | undefined;
  if (input.dateUtc) {
    // Written in the site's zone too (`date`), where it must not leave the years either.
    moment = parseDateInput(input.dateUtc, 'UTC', now);
    if (moment && !withinYears(moment.setZone(zone))) moment = null;
    if (!moment) errors.add('dateUtc', NOT_A_DATE);
  } else if (input.date) {
    moment = parseDateInput(input.date, zone, now);
    if (!moment) errors.add('date', NOT_A_DATE);
  }
  if (!moment) return undefined;
  return { publishedAt: moment.toJSDate(), publishedLocal: toWallClock(moment.setZone(zone)) };
}

export function nowColumns(ctx: Context) {
  const now = DateTime.fromJSDate(ctx.now()).setZone(ctx.config.siteTimezone).set({ millisecond: 0 });
  return { at: now.toJSDate(), local: toWallClock(now) };
}

export function modifiedNow(ctx: Context) {
  const { at, local } = nowColumns(ctx);
  return { modifiedAt: at, modifiedLocal: local };
}

/** Columns for a new post: published and modified now unless a publication date was given. */
export function newPostDates(ctx: Context, publication: PublicationColumns | undefined) {
  const { at, local } = nowColumns(ctx);
  return {
    publishedAt: publication?.publishedAt ?? at,
    publishedLocal: publication?.publishedLocal ?? local,
    modifiedAt: at,
    modifiedLocal: local,
  };
}
