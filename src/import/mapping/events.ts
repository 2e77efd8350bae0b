import { requiredText, flag, linkedRecords, text, asRecord, type RemoteRecord } from '../remote.js';
import type { Input } from '../writer.js';
import { recurrenceOf } from '../series.js';
import {
  expectedSlug,
  importedImage,
  locked,
  postFields,
  storedName,
  type LinkResolver,
  type RecordKind,
} from './kind.js';

/** Wide enough for any calendar: TEC lists only upcoming events unless told otherwise. */
const EVERY_DATE = { start_date: '1970-01-01 00:00:00', end_date: '2100-12-31 23:59:59' };

const CURRENCY_POSITIONS = ['prefix', 'postfix'];

function costFields(remote: RemoteRecord): Input {
  const details = remote.cost_details ? asRecord(remote.cost_details, '"cost_details"') : {};
  const position = text(details, 'currency_position');
  return {
    cost: text(remote, 'cost'),
    currencySymbol: text(details, 'currency_symbol') || undefined,
    currencyCode: text(details, 'currency_code') || undefined,
    currencyPosition: CURRENCY_POSITIONS.includes(position) ? position : undefined,
  };
}

/** TEC (and this service) answer the event's own page when it has no website of its own. */
function ownWebsite(remote: RemoteRecord): string {
  const website = text(remote, 'website');
  return website === text(remote, 'url') ? '' : website;
}

async function localIds(
  links: LinkResolver,
  type: 'venue' | 'organizer' | 'category' | 'tag',
  linked: RemoteRecord[],
): Promise<number[]> {
  const ids: number[] = [];
  for (const record of linked) ids.push(await links.localId(type, record));
  return ids;
}

export const eventKind: RecordKind = {
  type: 'event',
  route: '/events',
  listKey: 'events',
  hasStatus: true,
  listQuery: EVERY_DATE,
  mutations: { create: 'createEvent', update: 'updateEvent', inputType: 'EventInput' },

  async toInput(remote, links) {
    if (remote.all_day === null) throw locked();
    const input: Input = {
      title: requiredText(remote, 'title'),
      ...postFields(remote),
      timezone: text(remote, 'timezone') || undefined,
      startDate: requiredText(remote, 'start_date'),
      endDate: requiredText(remote, 'end_date'),
      allDay: flag(remote, 'all_day') ?? false,
      ...costFields(remote),
      website: ownWebsite(remote),
      image: await importedImage(remote, links),
      showMap: flag(remote, 'show_map'),
      showMapLink: flag(remote, 'show_map_link'),
      hideFromListings: flag(remote, 'hide_from_listings'),
      sticky: flag(remote, 'sticky'),
      featured: flag(remote, 'featured'),
      ticketed: flag(remote, 'ticketed'),
      // A series master: the same rule here, which makes the occurrences (src/import/series.ts).
      recurrence: recurrenceOf(remote),
    };
    // Links last: a record that cannot be read is refused before anything it links to is imported.
    input.venues = (await localIds(links, 'venue', linkedRecords(remote, 'venue'))).map((id) => ({ id }));
    input.organizers = (await localIds(links, 'organizer', linkedRecords(remote, 'organizer'))).map((id) => ({ id }));
    input.categories = (await localIds(links, 'category', linkedRecords(remote, 'categories'))).map(String);
    input.tags = (await localIds(links, 'tag', linkedRecords(remote, 'tags'))).map(String);
    return input;
  },

  async twins(db, input) {
    const title = storedName(input.title);
    const rows = await db.event.findMany({ where: { slug: expectedSlug(input, title), title }, select: { id: true } });
    return rows.map((row) => row.id);
  },
};
