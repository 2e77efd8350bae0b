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
