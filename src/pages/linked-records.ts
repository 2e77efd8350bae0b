import type { RestOrganizerFragment, RestVenueFragment } from '../read/operations/generated/graphql.js';
import { html, type Html } from './html.js';
import type { SitePaths } from './paths.js';

// How a venue and an organizer are shown: on their own pages and inside an event's.

/** The venue's address as one line: street, postal code and city, region, country (the parts it has). */
export function addressLine(venue: RestVenueFragment): string {
  const region = venue.stateProvince || venue.state || venue.province;
  const locality = [venue.zip, venue.city].filter(Boolean).join(' ');
  return [venue.address, locality, region, venue.country].filter(Boolean).join(', ');
}

/** A link to the venue on OpenStreetMap: its coordinates when known, else a search for its address; null with neither. */
export function mapUrl(venue: RestVenueFragment): string | null {
  if (venue.latitude != null && venue.longitude != null) {
    const [lat, lon] = [venue.latitude, venue.longitude];
    return `https://www.openstreetmap.org/?mlat=${lat}&mlon=${lon}#map=16/${lat}/${lon}`;
  }
  const address = addressLine(venue);
  return address ? `https://www.openstreetmap.org/search?query=${encodeURIComponent(address)}` : null;
}

/** Where: the venue's name (linked to its page), address and map link; a locked venue shows its name only. */
export function venueDetails(
  paths: SitePaths,
  venue: RestVenueFragment,
  { linkName = true, showMapLink = venue.showMapLink } = {},
): Html {
  const name = linkName ? html`<a href="${paths.page('venue', venue.slug)}">${venue.name}</a>` : html`${venue.name}`;
  if (venue.isLocked) return html`<p>${name}</p>`;
  const address = addressLine(venue);
  const map = showMapLink ? mapUrl(venue) : null;
  return html`<p>${name}${address ? html`<br>${address}` : null}</p>
${map ? html`<p><a href="${map}" rel="external">Show on map</a></p>` : null}
${contactLines(venue)}`;
}

/** Who: the organizer's name (linked to its page) and how to reach them; a locked organizer shows its name only. */
export function organizerDetails(paths: SitePaths, organizer: RestOrganizerFragment, { linkName = true } = {}): Html {
  const name = linkName
    ? html`<a href="${paths.page('organizer', organizer.slug)}">${organizer.name}</a>`
    : html`${organizer.name}`;
  if (organizer.isLocked) return html`<p>${name}</p>`;
  return html`<p>${name}</p>
${organizer.email ? html`<p>E-mail: <a href="mailto:${organizer.email}">${organizer.email}</a></p>` : null}
${contactLines(organizer)}`;
}

function contactLines(record: { phone: string; website: string }): Html {
  return html`${record.phone ? html`<p>Phone: ${record.phone}</p>` : null}
${record.website && isWebUrl(record.website) ? html`<p><a href="${record.website}" rel="external">${record.website}</a></p>` : null}`;
}

/** Only http(s) links are written into pages (a stored `javascript:` URL must never become a link). */
export function isWebUrl(url: string): boolean {
  try {
    return ['http:', 'https:'].includes(new URL(url).protocol);
  } catch {
    return false;
  }
}
