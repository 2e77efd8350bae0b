import type { Config } from '../config.js';
import type { Context } from '../graphql/context.js';
import type { RequestLog } from '../logging/request-log.js';
import { restUrls } from '../read/urls.js';
import { PageRefusal } from './data.js';
import { eventPage } from './event-page.js';
import { eventsListPage } from './events-list-page.js';
import { html } from './html.js';
import { htmlResponse, pageDocument } from './layout.js';
import { EVENTS_LIST, pagePathOf, sitePaths, type PostType, type SitePaths } from './paths.js';
import { organizerPage, venuePage } from './linked-post-page.js';

// The public pages the API's `url` fields point at, rendered on the server as plain HTML.

const RECORD_PAGE = /^\/(event|venue|organizer)\/([^/]+)\/?$/;
const LIST_PAGE = new RegExp(`^/${EVENTS_LIST}/?$`);
const ALLOWED = 'GET, HEAD';

/** What a page path asks for, or null when the path is not a page's. */
type PageRoute = { kind: PostType; slug: string } | { kind: 'list' };

/** The slug in a path; `''` (no such record) when its percent-encoding is broken. */
function decodedSlug(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return '';
  }
}

function routeOf(path: string): PageRoute | null {
  if (LIST_PAGE.test(path)) return { kind: 'list' };
  const match = RECORD_PAGE.exec(path);
  return match ? { kind: match[1] as PostType, slug: decodedSlug(match[2]!) } : null;
}

function refusalPage(paths: SitePaths, refusal: PageRefusal): Response {
  const document = pageDocument(paths, {
    title: refusal.heading,
    body: html`<h1>${refusal.heading}</h1><p>${refusal.message}</p>`,
  });
  return htmlResponse(document, refusal.status, refusal.headers);
}

/**
 * The public pages' handler: answers a request for a page path, or null when the path is not one. `makeContext`
 * signs the request in (it throws a PageRefusal for credentials that are refused) and gives its GraphQL context, so
 * a page shows what the API would show the same viewer.
 */
export function createPageHandler<Scope>(
  config: Config,
  makeContext: (request: Request, scope: Scope) => Promise<Context>,
) {
  const paths = sitePaths(config);
  const urls = restUrls(config);

  async function render(route: PageRoute, url: URL, context: Context): Promise<string> {
    if (route.kind === 'list') return eventsListPage(url, context, paths);
    if (!route.slug) throw PageRefusal.notFound();
    if (route.kind === 'event') return eventPage(route.slug, context, paths, urls);
    if (route.kind === 'venue') return venuePage(route.slug, context, paths);
    return organizerPage(route.slug, context, paths);
  }

  return async function handlePage(request: Request, log: RequestLog, scope: Scope): Promise<Response | null> {
    const url = new URL(request.url);
    const route = routeOf(pagePathOf(url.pathname, paths.base));
    if (!route) return null;
    try {
      if (request.method !== 'GET')
        throw new PageRefusal(405, 'Method not allowed', 'Pages are only read.', { Allow: ALLOWED });
      return htmlResponse(await render(route, url, await makeContext(request, scope)));
    } catch (error) {
      if (error instanceof PageRefusal) return refusalPage(paths, error);
      log.unexpected(error);
      return refusalPage(
        paths,
        new PageRefusal(500, 'Something went wrong', 'The page could not be shown. Try again later.'),
      );
    }
  };
}
