import { DateTime } from 'luxon';
import type { Event } from '../../db/generated/prisma/client.js';
import { assertRuleMatches, parseRecurrence, RecurrenceError } from '../../time/recurrence.js';
import { canonicalTimeZone } from '../../config.js';
import { fromWallClock, NOT_A_DATE, readDateInput, toWallClock, type ReadDate } from '../../time/dates.js';
import { canReadPost } from '../access.js';
import { builder, type Context } from '../builder.js';
import { FieldErrors } from '../errors.js';
import { readImageInput } from '../media/index.js';
import { checkOrganizerInput, OrganizerInput } from '../organizers/index.js';
import type { LinkedPostRow } from '../shared/linked-post-api.js';
import { databaseIdOf } from '../shared/node.js';
import { POST_INPUT_DESCRIPTIONS, PostStatusEnum, publicationFromInput } from '../shared/posts.js';
import { checkNonEmpty, checkUrl, definedOnly } from '../shared/validate.js';
import { guessCurrency, recurrenceColumns, recurrenceLines } from './columns.js';
import { readTermAssignment } from '../terms/references.js';
import { checkVenueInput, VenueInput } from '../venues/index.js';

const LinkedVenueInput = builder.inputType('LinkedVenueInput', {
  description:
    'An existing venue by `id`, a `new` one created with the event, or `newUnlessDuplicate`. Exactly one of the three.',
  isOneOf: true,
  fields: (t) => ({
    id: t.id({ description: "An existing venue's global ID or database ID; the writer must be able to read it." }),
    new: t.field({ type: VenueInput, description: 'A venue to create with the event.' }),
    newUnlessDuplicate: t.field({
      type: VenueInput,
      description:
        'A venue to create with the event, unless one like it exists (see `matchingVenue`): that one is linked instead, as the REST API does.',
    }),
  }),
});

const LinkedOrganizerInput = builder.inputType('LinkedOrganizerInput', {
  description:
    'An existing organizer by `id`, a `new` one created with the event, or `newUnlessDuplicate`. Exactly one of the three.',
  isOneOf: true,
  fields: (t) => ({
    id: t.id({ description: "An existing organizer's global ID or database ID; the writer must be able to read it." }),
    new: t.field({ type: OrganizerInput, description: 'An organizer to create with the event.' }),
    newUnlessDuplicate: t.field({
      type: OrganizerInput,
      description:
        'An organizer to create with the event, unless one like it exists (see `matchingOrganizer`): that one is linked instead, as the REST API does.',
    }),
  }),
});

export const EventInput = builder.inputType('EventInput', {
  description:
    'Fields of an event. On create, `title`, `startDate` and `endDate` are required. On update, fields left out keep ' +
    'their value; a list given replaces the links (an empty list removes them all).',
  fields: (t) => ({
    title: t.field({ type: 'PlainText', description: 'The event title; required on create, and never empty.' }),
    description: t.field({ type: 'HTML', description: POST_INPUT_DESCRIPTIONS.description }),
    excerpt: t.field({ type: 'HTML', description: POST_INPUT_DESCRIPTIONS.excerpt }),
    slug: t.string({ description: 'Generated from the title when absent; `-2`, `-3` … added on clashes.' }),
    status: t.field({ type: PostStatusEnum, description: POST_INPUT_DESCRIPTIONS.status }),
    authorId: t.int({ description: POST_INPUT_DESCRIPTIONS.authorId }),
    date: t.field({ type: 'DateInput', description: 'Publication date in the site time zone.' }),
    dateUtc: t.field({ type: 'DateInput', description: 'Publication date in UTC.' }),
    timezone: t.string({ description: 'IANA time zone (`Europe/Berlin`) or `UTC+2`. Defaults to the site time zone.' }),
    startDate: t.field({
      type: 'DateInput',
      description: "Start, read in the event's time zone unless it has an offset.",
    }),
    endDate: t.field({ type: 'DateInput', description: "End, read in the event's time zone unless it has an offset." }),
    allDay: t.boolean({ description: 'Start at the beginning of the start day, end at the end of the end day.' }),
    cost: t.field({
      type: 'PlainText',
      description:
        'The cost as people should read it: `10`, `$10 - $20`, `20€`, `Free`. Its amounts become `costDetails.values`.',
    }),
    currencySymbol: t.string({ description: 'Guessed from the cost text when absent.' }),
    currencyCode: t.string({ description: 'The ISO 4217 currency code (`USD`, `EUR`); stored as given.' }),
    currencyPosition: t.string({ description: '`prefix` or `postfix`; guessed from the cost text when absent.' }),
    website: t.string({ description: POST_INPUT_DESCRIPTIONS.website }),
    image: t.string({ description: 'The ID of a known image or an http(s) URL; empty to remove.' }),
    showMap: t.boolean({ description: 'Show a map of the venue on the event page; true on create when left out.' }),
    showMapLink: t.boolean({ description: 'Show a link to a map of the venue; true on create when left out.' }),
    hideFromListings: t.boolean({
      description: 'Leave the event out of the `events` list and its feeds; false on create when left out.',
    }),
    sticky: t.boolean({
      description: 'Keep the event at the top of its day in month views; false on create when left out.',
    }),
    featured: t.boolean({ description: 'Mark the event as featured; false on create when left out.' }),
    password: t.string({ description: POST_INPUT_DESCRIPTIONS.password }),
    parentId: t.int({
      description: 'The database ID of the parent event of a recurring series; null removes the parent.',
    }),
    ticketed: t.boolean({
      description:
        'Whether the event has tickets (a flag only: nothing sells them here); false on create when left out.',
    }),
    venues: t.field({
      type: [LinkedVenueInput],
      description:
        'The event’s venues in display order, existing or new; replaces the current ones, an empty list removes them.',
    }),
    organizers: t.field({
      type: [LinkedOrganizerInput],
      description:
        'The event’s organizers in display order, existing or new; replaces the current ones, an empty list removes them.',
    }),
    recurrence: t.stringList({
      description:
        'RFC 5545 lines that make the event a recurring series, as Google Calendar takes them: one `RRULE` (FREQ DAILY to ' +
        'YEARLY, with INTERVAL, COUNT or UNTIL and the BY… parts), `EXDATE` and `RDATE` (with `TZID=`, UTC or ' +
        '`VALUE=DATE`). The event’s start and end are the first occurrence. An empty list makes the series a single event again.',
    }),
    categories: t.stringList({ description: 'Category IDs or names; names not known yet are created.' }),
    tags: t.stringList({ description: 'Tag IDs or names; names not known yet are created.' }),
  }),
});

export type EventFields = typeof EventInput.$inferInput;
type VenueCheck = Awaited<ReturnType<typeof checkVenueInput>>;
type OrganizerCheck = Awaited<ReturnType<typeof checkOrganizerInput>>;

/** Each link: an existing record, or a new one (`reuseDuplicate`: unless one like it exists). */
export type LinkPlan<Check, Fields> = Array<
  { id: number } | { input: Fields; checked: Check; reuseDuplicate: boolean }
>;

/**
 * Plans an event's links to venues or organizers: existing ones by ID, new ones checked. Linking is reading: a record
 * the writer may not read (another user's draft or private venue, say) is refused as if it did not exist, so that
 * nobody can read it through the event.
 */
async function planLinks<Fields, Check>(
  ctx: Context,
  errors: FieldErrors,
  field: string,
  typename: 'Venue' | 'Organizer',
  links:
    | Array<{ id?: string | number | null; new?: Fields | null; newUnlessDuplicate?: Fields | null }>
    | null
    | undefined,
  find: (ids: number[]) => Promise<LinkedPostRow[]>,
  check: (input: Fields, prefix: string) => Promise<Check>,
): Promise<LinkPlan<Check, Fields> | undefined> {
  if (links == null) return undefined;
  const plan: LinkPlan<Check, Fields> = [];
  const ids = links.map((link, index) =>
    link.id != null ? databaseIdOf(typename, link.id, `${field}.${index}.id`) : null,
  );
  const found = await find(ids.filter((id) => id !== null));
  const readable = new Set(
    found.filter((post) => post.status !== 'trash' && canReadPost(ctx.viewer.user, post)).map((post) => post.id),
  );
  for (const [index, link] of links.entries()) {
    const id = ids[index];
    const fresh = link.new ?? link.newUnlessDuplicate;
    if ([id, link.new, link.newUnlessDuplicate].filter((given) => given != null).length !== 1) {
      errors.add(`${field}.${index}`, 'give one of id, new and newUnlessDuplicate');
    } else if (id != null) {
      if (!readable.has(id)) errors.add(field, `no ${typename.toLowerCase()} with ID ${id}`);
      plan.push({ id });
    } else {
      try {
        plan.push({
          input: fresh!,
          checked: await check(fresh!, `${field}.${index}`),
          reuseDuplicate: link.newUnlessDuplicate != null,
        });
      } catch (error) {
        const fields = (error as { fields?: Record<string, string> }).fields;
        if (!fields) throw error;
        for (const [name, message] of Object.entries(fields)) errors.add(name, message);
      }
    }
  }
  return plan;
}

interface Schedule {
  timezone: string;
  startLocal: string;
  endLocal: string;
  startsAt: Date;
  endsAt: Date;
  allDay: boolean;
}

/** Start, end and zone after the input is applied to the stored event (if any); reported errors name the field. */
function schedule(ctx: Context, input: EventFields, current: Event | null, errors: FieldErrors): Schedule | undefined {
  if (!current) {
    if (input.startDate == null) errors.add('startDate', 'is required');
    if (input.endDate == null) errors.add('endDate', 'is required');
  }
  const zone = canonicalTimeZone(input.timezone ?? current?.timezone ?? ctx.config.siteTimezone);
  if (!zone) errors.add('timezone', 'must be an IANA time zone such as "Europe/Berlin" or an offset such as "UTC+2"');
  // An invalid zone still lets the dates be read in UTC, to tell which of them cannot be read at all.
  const timezone = zone ?? 'UTC';
  const now = DateTime.fromJSDate(ctx.now());
  // A date not sent keeps its instant while the zone stays (a repeated hour's second instant included); in a new
  // zone the event keeps its wall clock, read there.
  const keptZone = current?.timezone === timezone;
  const read = (
    field: 'startDate' | 'endDate',
    stored: string | undefined,
    storedAt: Date | undefined,
  ): ReadDate | null => {
    const raw = input[field];
    if (raw == null) {
      if (stored === undefined) return null;
      return {
        moment:
          keptZone && storedAt ? DateTime.fromJSDate(storedAt, { zone: timezone }) : fromWallClock(stored, timezone),
        movedForward: 0,
      };
    }
    const date = readDateInput(raw, timezone, now);
    if (!date) errors.add(field, NOT_A_DATE);
    return date;
  };
  const startRead = read('startDate', current?.startLocal, current?.startsAt);
  const endRead = read('endDate', current?.endLocal, current?.endsAt);
  if (!startRead || !endRead || !zone) return undefined;
  let start = startRead.moment;
  // A start the zone skips (a daylight-saving gap) is moved forward, as PHP and luxon read it; an end sent with it
  // moves as far, so the event keeps the length it was given rather than shrinking to nothing or ending first.
  const endShift = input.endDate == null ? 0 : Math.max(0, startRead.movedForward - endRead.movedForward);
  let end = endRead.moment.plus({ milliseconds: endShift });
  const allDay = input.allDay ?? current?.allDay ?? false;
  if (allDay) {
    start = start.startOf('day');
    end = end.endOf('day').set({ millisecond: 0 });
  }
  if (startRead.movedForward > 0 && !allDay && end <= start) {
    errors.add(
      'startDate',
      `does not exist in ${timezone} (the clocks skip it) and, moved forward, is not before endDate`,
    );
    return undefined;
  }
  if (end < start) {
    errors.add('endDate', 'must not be before startDate');
    return undefined;
  }
  return {
    timezone,
    startLocal: toWallClock(start),
    endLocal: toWallClock(end),
    startsAt: start.toJSDate(),
    endsAt: end.toJSDate(),
    allDay,
  };
}

/** Everything an event write needs, checked before anything is written. */
export async function checkEventInput(ctx: Context, input: EventFields, current: Event | null) {
  const errors = new FieldErrors();
  if (!current && !input.title?.trim()) errors.add('title', 'is required');
  checkNonEmpty(errors, 'title', input.title);
  checkNonEmpty(errors, 'slug', input.slug);
  checkUrl(errors, 'website', input.website);
  if (input.currencyPosition && !['prefix', 'postfix'].includes(input.currencyPosition)) {
    errors.add('currencyPosition', 'must be prefix or postfix');
  }
  if (
    input.authorId != null &&
    !(await ctx.db.user.findUnique({ where: { id: input.authorId }, select: { id: true } }))
  ) {
    errors.add('authorId', `no user with ID ${input.authorId}`);
  }
  if (input.parentId != null) {
    if (input.parentId === current?.id) errors.add('parentId', 'an event cannot be its own parent');
    else if (!(await ctx.db.event.findUnique({ where: { id: input.parentId }, select: { id: true } }))) {
      errors.add('parentId', `no event with ID ${input.parentId}`);
    }
  }
  const when = schedule(ctx, input, current, errors);
  const recurrence = checkRecurrence(input, current, when, errors);
  const publication = publicationFromInput(ctx, { date: input.date, dateUtc: input.dateUtc }, errors);
  const image = await readImageInput(ctx, errors, 'image', input.image);
  const linkColumns = { id: true, slug: true, status: true, authorId: true, password: true } as const;
  const venues = await planLinks(
    ctx,
    errors,
    'venues',
    'Venue',
    input.venues,
    (ids) => ctx.db.venue.findMany({ where: { id: { in: ids } }, select: linkColumns }),
    (fields, prefix) => checkVenueInput(ctx, fields, true, prefix),
  );
  const organizers = await planLinks(
    ctx,
    errors,
    'organizers',
    'Organizer',
    input.organizers,
    (ids) => ctx.db.organizer.findMany({ where: { id: { in: ids } }, select: linkColumns }),
    (fields, prefix) => checkOrganizerInput(ctx, fields, true, prefix),
  );
  const categories = input.categories
    ? await readTermAssignment(ctx, errors, 'categories', 'category', input.categories)
    : undefined;
  const tags = input.tags ? await readTermAssignment(ctx, errors, 'tags', 'tag', input.tags) : undefined;
  errors.throwIfAny();
  return {
    columns: { ...eventColumns(input, when, publication), ...recurrence },
    image,
    venues,
    organizers,
    categories,
    tags,
  };
}

/**
 * The recurrence lines, checked in the zone the event will have and against its start (a rule matching no date from
 * there is refused); an occurrence has none of its own. A series whose start moves has its stored rule checked again.
 */
function checkRecurrence(
  input: EventFields,
  current: Event | null,
  when: Schedule | undefined,
  errors: FieldErrors,
): Partial<ReturnType<typeof recurrenceColumns>> {
  if (input.recurrence == null) {
    const moved = input.startDate != null || input.timezone != null || input.allDay != null;
    if (current?.isSeriesMaster && moved && when)
      readChecked(recurrenceLines(current.recurrence), when.timezone, when.startLocal, errors);
    return {};
  }
  if (current?.recurringEventId) {
    errors.add('recurrence', 'belongs to the series: change it there, or with scope FOLLOWING from this occurrence on');
    return {};
  }
  const lines = input.recurrence.map((line) => line.trim()).filter((line) => line !== '');
  if (lines.length === 0) return recurrenceColumns([]);
  const read = readChecked(
    lines,
    when?.timezone ?? current?.timezone ?? 'UTC',
    when?.startLocal ?? current?.startLocal,
    errors,
  );
  return read ? recurrenceColumns(read.lines) : {};
}

/** Recurrence lines read in `zone` and, with the series' start, refused if the rule matches no date; faults go to `errors`. */
function readChecked(lines: string[], zone: string, startLocal: string | undefined, errors: FieldErrors) {
  try {
    const recurrence = parseRecurrence(lines, zone);
    if (startLocal) assertRuleMatches(recurrence, startLocal);
    return recurrence;
  } catch (error) {
    if (!(error instanceof RecurrenceError)) throw error;
    errors.add('recurrence', error.message);
    return undefined;
  }
}

function eventColumns(
  input: EventFields,
  when: Schedule | undefined,
  publication: ReturnType<typeof publicationFromInput>,
) {
  const { title, cost, currencySymbol, currencyPosition } = input;
  const guessed = cost ? guessCurrency(cost) : null;
  return definedOnly({
    title: title?.trim(),
    description: input.description ?? undefined,
    excerpt: input.excerpt ?? undefined,
    status: input.status ?? undefined,
    authorId: input.authorId,
    cost: cost ?? undefined,
    currencySymbol: currencySymbol ?? guessed?.symbol,
    currencyCode: input.currencyCode ?? undefined,
    currencyPosition: currencyPosition ?? guessed?.position,
    website: input.website ?? undefined,
    showMap: input.showMap ?? undefined,
    showMapLink: input.showMapLink ?? undefined,
    hideFromListings: input.hideFromListings ?? undefined,
    sticky: input.sticky ?? undefined,
    featured: input.featured ?? undefined,
    password: input.password ?? undefined,
    parentId: input.parentId,
    ticketed: input.ticketed ?? undefined,
    ...(when ?? {}),
    ...(publication ?? {}),
  });
}

export type CheckedEvent = Awaited<ReturnType<typeof checkEventInput>>;

/** The images a checked event write gives: its own and those of the venues and organizers it creates. */
export function newImagesOf(checked: CheckedEvent) {
  const linked = [...(checked.venues ?? []), ...(checked.organizers ?? [])];
  return [checked.image, ...linked.map((link) => ('checked' in link ? link.checked.image : undefined))];
}
export type { VenueCheck, OrganizerCheck };
