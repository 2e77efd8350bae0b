import type { Context } from '../graphql/context.js';
import { RestOrganizerBySlugDocument } from '../read/operations/generated/graphql.js';
import { organizerJsonLd } from '../read/serialize/linked-posts.js';
import { assertPublic, runPageQuery } from './data.js';
import { eventList, eventsPage, upcoming } from './event-list.js';
import { html, trustedHtml } from './html.js';
import { pageDocument } from './layout.js';
import { organizerDetails } from './linked-records.js';
import type { SitePaths } from './paths.js';

const LOCKED_NOTICE = html`<p class="notice">This organizer is password-protected: only its name is shown here.</p>`;

/** `/organizer/<slug>/`: name, contact, description, and the upcoming events they run. */
export async function organizerPage(slug: string, context: Context, paths: SitePaths): Promise<string> {
  const organizer = (await runPageQuery(RestOrganizerBySlugDocument, { slug }, context)).organizerBySlug;
  assertPublic(organizer);
  const url = paths.absolutePage('organizer', organizer.slug);
  if (organizer.isLocked)
    return pageDocument(paths, {
      title: organizer.name,
      canonical: url,
      body: html`<h1>${organizer.name}</h1>${LOCKED_NOTICE}`,
    });
  const { events } = await eventsPage({ ...upcoming(context), organizers: [organizer.id] }, 1, context);
  return pageDocument(paths, {
    title: organizer.name,
    canonical: url,
    jsonLd: { '@context': 'http://schema.org', ...organizerJsonLd(organizer) },
    body: html`<h1>${organizer.name}</h1>
${organizerDetails(paths, organizer, { linkName: false })}
${organizer.description ? html`<section class="description">${trustedHtml(organizer.description)}</section>` : null}
<section><h2>Upcoming events</h2>${eventList(paths, events)}</section>`,
  });
}
