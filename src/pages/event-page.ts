import type { Context } from '../graphql/builder.js';
import { RestEventBySlugDocument, type RestEventFragment } from '../read/operations/generated/graphql.js';
import { eventJsonLd } from '../read/serialize.js';
import type { RestUrls } from '../urls.js';
import { assertPublic, runPageQuery } from './data.js';
import { eventWhen } from './dates.js';
import { html, trustedHtml, type Html } from './html.js';
import { pageDocument } from './layout.js';
import { isWebUrl, organizerDetails, venueDetails } from './linked-records.js';
import type { SitePaths } from './paths.js';

const LOCKED_NOTICE = html`<p class="notice">This event is password-protected: only its title and dates are shown here.</p>`;

/** schema.org data for an event; a locked event's carries only what its page shows. */
function jsonLdOf(urls: RestUrls, event: RestEventFragment): unknown {
  const full = eventJsonLd(urls, event);
  if (!event.isLocked) return full;
  const { name, url, startDate, endDate } = full;
  return { '@context': full['@context'], '@type': full['@type'], name, url, startDate, endDate };
}

function eventDetails(paths: SitePaths, event: RestEventFragment): Html {
  const venues = event.venues.map((venue) => venueDetails(paths, venue, { showMapLink: event.showMapLink }));
  const organizers = event.organizers.map((organizer) => organizerDetails(paths, organizer));
  return html`${venues.length ? html`<section><h2>Venue</h2>${venues}</section>` : null}
${organizers.length ? html`<section><h2>Organizer</h2>${organizers}</section>` : null}
${event.formattedCost ? html`<p>Cost: ${event.formattedCost}</p>` : null}
${event.website && isWebUrl(event.website) ? html`<p><a href="${event.website}" rel="external">Event website</a></p>` : null}
${event.description ? html`<section class="description">${trustedHtml(event.description)}</section>` : null}`;
}

/** `/event/<slug>/`: title, dates in the event's zone, venue, organizer, description, and its iCalendar file. */
export async function eventPage(slug: string, context: Context, paths: SitePaths, urls: RestUrls): Promise<string> {
  const data = await runPageQuery(RestEventBySlugDocument, { slug }, context);
  const event = data.eventBySlug;
  assertPublic(event);
  return pageDocument(paths, {
    title: event.title,
    canonical: paths.absolutePage('event', event.slug),
    jsonLd: jsonLdOf(urls, event),
    body: html`<article>
<h1>${event.title}</h1>
<p class="when">${eventWhen(event)}</p>
${
  event.isLocked
    ? LOCKED_NOTICE
    : html`${eventDetails(paths, event)}
<p><a href="${paths.eventIcs(event.id)}" type="text/calendar">Add to calendar (.ics)</a></p>`
}
</article>`,
  });
}
