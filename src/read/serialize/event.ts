import { DateTime } from 'luxon';
import type { RestEventFragment } from '../operations/generated/graphql.js';
import { pageUrl, type RestUrls } from '../../urls.js';
import {
  lockedOrganizerToTec,
  lockedVenueToTec,
  organizerJsonLd,
  organizerToTec,
  venueJsonLd,
  venueToTec,
  type SerializeOptions,
  authorString,
  dateDetails,
  embeddedTermToTec,
  globalIds,
  imageObject,
  postDates,
  restStatus,
  utcWallClock,
} from './records.js';

const AMOUNT = String.raw`\d+(?:[.,]\d+)?`;
/** An amount or a range of amounts and nothing else (once the currency symbol is taken out). */
const PLAIN_AMOUNTS = new RegExp(`^${AMOUNT}(?:\\s*(?:-|–|—|,|to)\\s*${AMOUNT})*$`, 'i');

/**
 * TEC renders a cost with its currency symbol in place: a plain amount or range is rebuilt from the parsed values,
 * lowest and highest joined by an en dash (`$10 – $25`), and 0 reads "Free". Any other text is kept, with the
 * symbol put beside its numbers when the text lacks it.
 */
export function formattedCost(event: Pick<RestEventFragment, 'cost' | 'costDetails'>): string {
  const cost = event.cost.trim();
  if (cost === '') return '';
  const { currencySymbol: symbol, currencyPosition: position, values } = event.costDetails;
  const withSymbol = (amount: string) =>
    !symbol ? amount : position === 'postfix' ? `${amount}${symbol}` : `${symbol}${amount}`;
  const label = (amount: string) => (Number(amount) === 0 ? 'Free' : withSymbol(amount));
  const bare = (symbol ? cost.split(symbol).join('') : cost).trim();
  const amounts = values.filter((value) => /^\d+(\.\d+)?$/.test(value));
  if (PLAIN_AMOUNTS.test(bare) && amounts.length > 0) {
    const low = amounts[0]!;
    const high = amounts[amounts.length - 1]!;
    // A single amount keeps the way it was written (`6,50`).
    if (low === high) return Number(low) === 0 ? 'Free' : withSymbol(new RegExp(`^${AMOUNT}$`).test(bare) ? bare : low);
    return `${label(low)} – ${label(high)}`;
  }
  if (!symbol || cost.includes(symbol)) return cost;
  return cost.replace(new RegExp(AMOUNT, 'g'), (n) => withSymbol(n));
}

/** An instant with the offset of its zone: from the instant, as a wall clock the zone repeats names two of them. */
function isoWithOffset(instant: string, timezone: string): string {
  // `+00:00` rather than `Z`, as TEC prints it.
  const moment = DateTime.fromISO(instant, { zone: timezone });
  return moment.isValid ? moment.toFormat("yyyy-MM-dd'T'HH:mm:ssZZ") : '';
}

export function eventJsonLd(urls: RestUrls, event: RestEventFragment) {
  const url = pageUrl(urls.site, 'event', event.slug);
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
    startDate: isoWithOffset(event.startsAt, event.timezone),
    endDate: isoWithOffset(event.endsAt, event.timezone),
    ...(venue ? { location: venueJsonLd(venue) } : {}),
    ...(organizer ? { organizer: organizerJsonLd(organizer) } : {}),
    ...(event.costDetails.values.length
      ? {
          offers: {
            '@type': 'Offer',
            price: event.costDetails.values[0],
            priceCurrency: event.costDetails.currencyCode,
            url,
          },
        }
      : {}),
  };
}

/** TEC's event object (§2.1), every key present, in the emitted order. */
export function eventToTec(urls: RestUrls, event: RestEventFragment, options: SerializeOptions = {}) {
  // An embedded protected venue or organizer keeps TEC's blanked shape, as on its own routes.
  const venues = event.venues.map((venue) => (venue.isLocked ? lockedVenueToTec : venueToTec)(urls, venue, options));
  return {
    id: event.id,
    ...globalIds(urls, event.id),
    author: authorString(event.authorId),
    status: restStatus(event.status),
    ...postDates(event),
    url: pageUrl(urls.site, 'event', event.slug),
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
    website: event.website || pageUrl(urls.site, 'event', event.slug),
    show_map: event.showMap,
    show_map_link: event.showMapLink,
    hide_from_listings: event.hideFromListings,
    sticky: event.sticky,
    featured: event.featured,
    categories: event.categories.map((term) => embeddedTermToTec(urls, 'categories', term)),
    tags: event.tags.map((term) => embeddedTermToTec(urls, 'tags', term)),
    venue: venues.length === 1 ? venues[0] : venues,
    organizer: event.organizers.map((organizer) =>
      (organizer.isLocked ? lockedOrganizerToTec : organizerToTec)(urls, organizer, options),
    ),
    custom_fields: [],
    ...(options.single ? { json_ld: eventJsonLd(urls, event) } : {}),
    ticketed: event.ticketed,
    recurrence: event.recurrence,
    ...(event.recurringEventId == null
      ? {}
      : { recurring_event_id: event.recurringEventId, original_start_date: event.originalStartLocal }),
  };
}

type TecEvent = ReturnType<typeof eventToTec>;

/**
 * A password-protected event as lists show it to whoever lacks the password (decision 3, docs/rest-compatibility.md): listed,
 * with the protected fields blanked the way TEC blanks them; title, dates, url, slug and status stay visible.
 */
export function blankProtectedEvent(event: TecEvent) {
  return {
    ...event,
    description: '',
    excerpt: '',
    image: false as const,
    all_day: null,
    cost: '',
    cost_details: { currency_symbol: '', currency_code: '', currency_position: '', values: [] as string[] },
    website: '',
    show_map: null,
    show_map_link: null,
    hide_from_listings: null,
    sticky: null,
    featured: null,
    categories: [],
    tags: [],
    venue: [],
    organizer: [],
    custom_fields: [],
    ticketed: null,
  };
}
