import type { Context } from '../graphql/builder.js';
import {
  type EventsFilter,
  RestOrganizerBySlugDocument,
  RestVenueBySlugDocument,
} from '../read/operations/generated/graphql.js';
import { organizerJsonLd, venueJsonLd } from '../read/serialize.js';
import { assertPublic, runPageQuery } from './data.js';
import { eventList, eventsPage, upcoming } from './event-list.js';
import { type Html, html, trustedHtml } from './html.js';
import { pageDocument } from './layout.js';
import { organizerDetails, venueDetails } from './linked-records.js';
import type { SitePaths } from './paths.js';

/** What a venue's or an organizer's page shows of its record, read for a slug. */
interface LinkedPost {
  id: number;
  slug: string;
  name: string;
  description: string | null;
  isLocked: boolean;
  details(paths: SitePaths): Html;
  jsonLd(url: string): Record<string, unknown>;
  events: Partial<EventsFilter>;
}

const lockedNotice = (noun: string) =>
  html`<p class="notice">This ${noun} is password-protected: only its name is shown here.</p>`;

/** `/venue/<slug>/`: name, address with a map link, contact, description, and its upcoming events. */
export async function venuePage(slug: string, context: Context, paths: SitePaths): Promise<string> {
  const venue = (await runPageQuery(RestVenueBySlugDocument, { slug }, context)).venueBySlug;
  assertPublic(venue);
  return linkedPostPage('venue', context, paths, {
    ...venue,
    details: (at) => venueDetails(at, venue, { linkName: false }),
    jsonLd: (url) => ({ ...venueJsonLd(venue), url }),
    events: { venueIds: [venue.id] },
  });
}

/** `/organizer/<slug>/`: name, contact, description, and the upcoming events they run. */
export async function organizerPage(slug: string, context: Context, paths: SitePaths): Promise<string> {
  const organizer = (await runPageQuery(RestOrganizerBySlugDocument, { slug }, context)).organizerBySlug;
  assertPublic(organizer);
  return linkedPostPage('organizer', context, paths, {
    ...organizer,
    details: (at) => organizerDetails(at, organizer, { linkName: false }),
    jsonLd: () => organizerJsonLd(organizer),
    events: { organizerIds: [organizer.id] },
  });
}

async function linkedPostPage(
  kind: 'venue' | 'organizer',
  context: Context,
  paths: SitePaths,
  post: LinkedPost,
): Promise<string> {
  const url = paths.absolutePage(kind, post.slug);
  if (post.isLocked)
    return pageDocument(paths, {
      title: post.name,
      canonical: url,
      body: html`<h1>${post.name}</h1>${lockedNotice(kind)}`,
    });
  const { events } = await eventsPage({ ...upcoming(context), ...post.events }, 1, context);
  return pageDocument(paths, {
    title: post.name,
    canonical: url,
    jsonLd: { '@context': 'http://schema.org', ...post.jsonLd(url) },
    body: html`<h1>${post.name}</h1>
${post.details(paths)}
${post.description ? html`<section class="description">${trustedHtml(post.description)}</section>` : null}
<section><h2>Upcoming events</h2>${eventList(paths, events)}</section>`,
  });
}
