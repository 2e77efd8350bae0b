import { createHash } from 'node:crypto';
import { htmlSafeJson } from '../content/html.js';
import { REFERRER_POLICY } from '../http/security-headers.js';
import { html, trustedHtml, type Html } from './html.js';
import type { SitePaths } from './paths.js';

// The frame every public page shares: language, viewport, a little inline CSS, no JavaScript.

const STYLE = `
body{font:16px/1.5 system-ui,sans-serif;max-width:46rem;margin:0 auto;padding:1rem;color:#1d1d1f;background:#fff}
a{color:#0b57d0}h1{line-height:1.2;margin:.5rem 0}nav{font-size:.9rem}
.when{font-weight:600}.notice{background:#fff4ce;padding:.5rem .75rem;border-radius:4px}
section{margin:1.5rem 0}h2{font-size:1.1rem;margin-bottom:.25rem}
ol.events{list-style:none;padding:0}ol.events li{margin:.75rem 0}
.day{margin-top:1.5rem;border-bottom:1px solid #ddd}.muted{color:#555}
.pager{display:flex;justify-content:space-between;margin-top:2rem}
`;

export interface PageContent {
  title: string;
  /** Absolute URL of this page, for `<link rel="canonical">`. */
  canonical?: string;
  /** schema.org data, written as JSON-LD in the head. */
  jsonLd?: unknown;
  body: Html;
}

/** The whole document of a public page. */
export function pageDocument(paths: SitePaths, { title, canonical, jsonLd, body }: PageContent): string {
  return html`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title}</title>
${canonical ? html`<link rel="canonical" href="${canonical}">` : null}
<style>${trustedHtml(STYLE)}</style>
${jsonLd === undefined ? null : html`<script type="application/ld+json">${trustedHtml(htmlSafeJson(jsonLd))}</script>`}
</head>
<body>
<nav><a href="${paths.eventsList()}">All upcoming events</a></nav>
<main>
${body}
</main>
</body>
</html>
`.markup;
}

export const HTML_MEDIA_TYPE = 'text/html; charset=utf-8';

/**
 * What a page may load and do: no script at all (the JSON-LD block is data, which no policy needs to allow), the one
 * stylesheet above by its hash, the images, audio and video of descriptions from wherever they are (their URLs were
 * checked to be http(s) when stored), no plugin, form, `<base>` or framing by another site.
 */
const CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  `style-src 'sha256-${createHash('sha256').update(STYLE).digest('base64')}'`,
  'img-src http: https:',
  'media-src http: https:',
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'self'",
].join('; ');

/** An HTML answer. */
export function htmlResponse(document: string, status = 200, headers: Record<string, string> = {}): Response {
  return new Response(document, {
    status,
    headers: {
      'content-type': HTML_MEDIA_TYPE,
      'content-security-policy': CONTENT_SECURITY_POLICY,
      'referrer-policy': REFERRER_POLICY,
      ...headers,
    },
  });
}
