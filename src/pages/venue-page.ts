import type { Context } from '../graphql/context.js';
import { RestVenueBySlugDocument } from '../read/operations/generated/graphql.js';
import { venueJsonLd } from '../read/serialize/linked-posts.js';
import { assertPublic, runPageQuery } from './data.js';
import { eventList, eventsPage, upcoming } from './event-list.js';
import { html, trustedHtml } from './html.js';
import { pageDocument } from './layout.js';
import { venueDetails } from './linked-records.js';
import type { SitePaths } from './paths.js';

const LOCKED_NOTICE = html`<p class="notice">This venue is password-protected: only its name is shown here.</p>`;

/** `/venue/<slug>/`: name, address with a map link, contact, description, and its upcoming events. */
export async function venuePage(slug: string, context: Context, paths: SitePaths): Promise<string> {
  const venue = (await runPageQuery(RestVenueBySlugDocument, { slug }, context)).venueBySlug;
  assertPublic(venue);
  const url = paths.absolutePage('venue', venue.slug);
  if (venue.isLocked)
    return pageDocument(paths, {
      title: venue.name,
      canonical: url,
      body: html`<h1>${venue.name}</h1>${LOCKED_NOTICE}`,
    });
  const { events } = await eventsPage({ ...upcoming(context), venues: [venue.id] }, 1, context);
  return pageDocument(paths, {
    title: venue.name,
    canonical: url,
    jsonLd: { '@context': 'http://schema.org', ...venueJsonLd(venue), url },
    body: html`<h1>${venue.name}</h1>
${venueDetails(paths, venue, { linkName: false })}
${venue.description ? html`<section class="description">${trustedHtml(venue.description)}</section>` : null}
<section><h2>Upcoming events</h2>${eventList(paths, events)}</section>`,
  });
}
