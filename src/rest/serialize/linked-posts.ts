import type { RestOrganizerFragment, RestVenueFragment } from '../operations/generated/graphql.js';
import type { RestUrls } from '../urls.js';
import { authorString, globalIds, imageObject, postDates, withoutEmpty } from './common.js';

export interface SerializeOptions {
  /** Single-record reads carry `json_ld`. */
  single?: boolean;
}

export function venueJsonLd(urls: RestUrls, venue: RestVenueFragment) {
  return {
    '@type': 'Place',
    name: venue.name,
    description: venue.excerpt,
    url: '',
    address: {
      '@type': 'PostalAddress',
      streetAddress: venue.address,
      addressLocality: venue.city,
      addressRegion: venue.stateProvince || venue.state || venue.province,
      postalCode: venue.zip,
      addressCountry: venue.country,
    },
    ...(venue.latitude != null ? { geo: { '@type': 'GeoCoordinates', latitude: venue.latitude, longitude: venue.longitude } } : {}),
    telephone: venue.phone,
    sameAs: venue.website,
  };
}

export function organizerJsonLd(organizer: RestOrganizerFragment) {
  return {
    '@type': 'Person',
    name: organizer.name,
    description: organizer.excerpt,
    url: organizer.website,
    telephone: organizer.phone,
    email: organizer.email,
    sameAs: organizer.website,
  };
}

/** TEC's venue object (§2.2): empty values dropped, then the always-present keys. */
export function venueToTec(urls: RestUrls, venue: RestVenueFragment, options: SerializeOptions = {}) {
  const image = imageObject(venue.image);
  return {
    ...withoutEmpty({
      id: venue.id,
      author: authorString(venue.authorId),
      status: venue.status,
      ...postDates(venue),
      url: `${urls.site}/venue/${venue.slug}/`,
      venue: venue.name,
      description: venue.description,
      excerpt: venue.excerpt,
      slug: venue.slug,
      image: image === false ? undefined : image,
      address: venue.address,
      city: venue.city,
      country: venue.country,
      province: venue.province,
      state: venue.state,
      zip: venue.zip,
      phone: venue.phone,
      website: venue.website,
      stateprovince: venue.stateProvince,
    }),
    ...(venue.latitude != null && venue.longitude != null ? { geo_lat: venue.latitude, geo_lng: venue.longitude } : {}),
    ...(options.single ? { json_ld: venueJsonLd(urls, venue) } : {}),
    show_map: venue.showMap,
    show_map_link: venue.showMapLink,
    ...globalIds(urls, venue.id),
  };
}

/** TEC's organizer object (§2.3): every empty value dropped. */
export function organizerToTec(urls: RestUrls, organizer: RestOrganizerFragment, options: SerializeOptions = {}) {
  const image = imageObject(organizer.image);
  return withoutEmpty({
    id: organizer.id,
    author: authorString(organizer.authorId),
    status: organizer.status,
    ...postDates(organizer),
    url: `${urls.site}/organizer/${organizer.slug}/`,
    organizer: organizer.name,
    description: organizer.description,
    excerpt: organizer.excerpt,
    slug: organizer.slug,
    image: image === false ? undefined : image,
    phone: organizer.phone,
    website: organizer.website,
    email: organizer.email,
    json_ld: options.single ? organizerJsonLd(organizer) : undefined,
    ...globalIds(urls, organizer.id),
  });
}

/** What TEC blanks each key to on a password-protected venue or organizer (rest-contract §5). */
const PROTECTED_BLANKS: Record<string, unknown> = {
  description: '',
  excerpt: '',
  address: '',
  city: '',
  country: '',
  province: '',
  zip: '',
  phone: '',
  website: '',
  stateprovince: '',
  email: '',
  image: false,
  geo_lat: 0,
  geo_lng: 0,
  show_map: null,
  show_map_link: null,
};

/**
 * A password-protected venue or organizer as readers without the password see it (rest-contract §5): each protected
 * key present is blanked in place, so the key order stays; the name, slug, url, dates and status remain. Two
 * departures from TEC: the name is not turned into `[]` (its shared field list catches `venue`/`organizer`), and
 * `json_ld` keeps only `@type` and the name instead of leaking the phone and website.
 */
export function blankProtectedLinkedPost<T extends Record<string, unknown>>(record: T): Record<string, unknown> {
  const blanked: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(record)) {
    if (key in PROTECTED_BLANKS) blanked[key] = PROTECTED_BLANKS[key];
    else if (key === 'json_ld' && value && typeof value === 'object') {
      const jsonLd = value as Record<string, unknown>;
      blanked[key] = { '@type': jsonLd['@type'], name: jsonLd.name };
    } else blanked[key] = value;
  }
  return blanked;
}
