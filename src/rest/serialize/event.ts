import { DateTime } from 'luxon';
import type { RestEventFragment } from '../operations/generated/graphql.js';
import type { RestUrls } from '../urls.js';
import { authorString, dateDetails, globalIds, imageObject, postDates, utcWallClock } from './common.js';
import { organizerJsonLd, organizerToTec, venueJsonLd, venueToTec, type SerializeOptions } from './linked-posts.js';
import { embeddedTermToTec } from './terms.js';

/** TEC renders a cost with its currency symbol in place; a cost of 0 reads "Free". */
function formattedCost(event: RestEventFragment): string {
  const cost = event.cost.trim();
  if (cost === '') return '';
  if (/^0+([.,]0+)?$/.test(cost)) return 'Free';
  const { currencySymbol: symbol, currencyPosition: position } = event.costDetails;
  if (!symbol || cost.includes(symbol)) return cost;
  return cost.replace(/\d+(?:[.,]\d+)?/g, (n) => (position === 'postfix' ? `${n}${symbol}` : `${symbol}${n}`));
}

function isoWithOffset(wallClock: string, timezone: string): string {
  return DateTime.fromFormat(wallClock, 'yyyy-MM-dd HH:mm:ss', { zone: timezone }).toISO({ suppressMilliseconds: true }) ?? '';
}

function eventJsonLd(urls: RestUrls, event: RestEventFragment) {
  const url = `${urls.site}/event/${event.slug}/`;
  const venue = event.venues[0];
  const organizer = event.organizers[0];
  return {
    '@context': 'http://schema.org',
    '@type': 'Event',
    name: event.title,
    description: event.excerpt,
    ...(event.image ? { image: event.image.url } : {}),
    url,
    eventAttendanceMode: 'https://schema.org/OfflineEventAttendanceMode',
    startDate: isoWithOffset(event.startsAtLocal, event.timezone),
    endDate: isoWithOffset(event.endsAtLocal, event.timezone),
    ...(venue ? { location: venueJsonLd(urls, venue) } : {}),
    ...(organizer ? { organizer: organizerJsonLd(organizer) } : {}),
    ...(event.costDetails.values.length
      ? { offers: { '@type': 'Offer', price: event.costDetails.values[0], priceCurrency: event.costDetails.currencyCode, url } }
      : {}),
  };
}

/** TEC's event object (§2.1), every key present, in the emitted order. */
export function eventToTec(urls: RestUrls, event: RestEventFragment, options: SerializeOptions = {}) {
  const venues = event.venues.map((venue) => venueToTec(urls, venue, options));
  return {
    id: event.id,
    ...globalIds(urls, event.id),
    author: authorString(event.authorId),
    status: event.status,
    ...postDates(event),
    url: `${urls.site}/event/${event.slug}/`,
    rest_url: `${urls.api}/events/${event.id}`,
    title: event.title,
    description: event.description,
    excerpt: event.excerpt,
    slug: event.slug,
    image: imageObject(event.image),
    all_day: event.allDay,
    start_date: event.startsAtLocal,
    start_date_details: dateDetails(event.startsAtLocal),
    end_date: event.endsAtLocal,
    end_date_details: dateDetails(event.endsAtLocal),
    utc_start_date: utcWallClock(event.startsAt),
    utc_start_date_details: dateDetails(utcWallClock(event.startsAt)),
    utc_end_date: utcWallClock(event.endsAt),
    utc_end_date_details: dateDetails(utcWallClock(event.endsAt)),
    timezone: event.timezone,
    timezone_abbr: event.timezoneAbbreviation,
    cost: formattedCost(event),
    cost_details: {
      currency_symbol: event.costDetails.currencySymbol,
      currency_code: event.costDetails.currencyCode,
      currency_position: event.costDetails.currencyPosition,
      values: event.costDetails.values,
    },
    website: event.website || `${urls.site}/event/${event.slug}/`,
    show_map: event.showMap,
    show_map_link: event.showMapLink,
    hide_from_listings: event.hideFromListings,
    sticky: event.sticky,
    featured: event.featured,
    categories: event.categories.map((term) => embeddedTermToTec(urls, 'categories', term)),
    tags: event.tags.map((term) => embeddedTermToTec(urls, 'tags', term)),
    venue: venues.length === 1 ? venues[0] : venues,
    organizer: event.organizers.map((organizer) => organizerToTec(urls, organizer, options)),
    custom_fields: [],
    ...(options.single ? { json_ld: eventJsonLd(urls, event) } : {}),
    ticketed: event.ticketed,
  };
}
