// The HTML that stored descriptions and excerpts may contain: WordPress's `$allowedposttags` (wp-includes/kses.php,
// WordPress 6.4+, the tags and attributes `wp_kses_post` lets users without `unfiltered_html` keep in post content),
// with `_wp_add_global_attributes` applied, and the link protocols of `wp_allowed_protocols()`
// (wp-includes/functions.php). Two differences, both stricter:
// - no `style` attribute: WordPress filters inline CSS property by property (`safecss_filter_attr`), which is not
//   reproduced here, so the attribute is dropped;
// - no `object`: WordPress only keeps it for same-site PDF files (`_wp_kses_allow_pdf_objects`).

/** `_wp_add_global_attributes`: allowed on every tag below. */
const GLOBAL_ATTRIBUTES = [
  'aria-controls', 'aria-current', 'aria-describedby', 'aria-details', 'aria-expanded', 'aria-hidden', 'aria-label',
  'aria-labelledby', 'aria-live', 'class', 'data-*', 'dir', 'hidden', 'id', 'lang', 'title', 'role', 'xml:lang',
];

/** `$allowedposttags`: tag → its own attributes. */
const POST_TAGS: Record<string, string[]> = {
  address: [],
  a: ['href', 'rel', 'rev', 'name', 'target', 'download'],
  abbr: [],
  acronym: [],
  area: ['alt', 'coords', 'href', 'nohref', 'shape', 'target'],
  article: ['align'],
  aside: ['align'],
  audio: ['autoplay', 'controls', 'loop', 'muted', 'preload', 'src'],
  b: [],
  bdo: [],
  big: [],
  blockquote: ['cite'],
  br: [],
  button: ['disabled', 'name', 'type', 'value'],
  caption: ['align'],
  cite: [],
  code: [],
  col: ['align', 'char', 'charoff', 'span', 'valign', 'width'],
  colgroup: ['align', 'char', 'charoff', 'span', 'valign', 'width'],
  del: ['datetime'],
  dd: [],
  dfn: [],
  details: ['align', 'open'],
  div: ['align'],
  dl: [],
  dt: [],
  em: [],
  fieldset: [],
  figure: ['align'],
  figcaption: ['align'],
  font: ['color', 'face', 'size'],
  footer: ['align'],
  h1: ['align'],
  h2: ['align'],
  h3: ['align'],
  h4: ['align'],
  h5: ['align'],
  h6: ['align'],
  header: ['align'],
  hgroup: ['align'],
  hr: ['align', 'noshade', 'size', 'width'],
  i: [],
  img: ['alt', 'align', 'border', 'height', 'hspace', 'loading', 'longdesc', 'vspace', 'src', 'usemap', 'width'],
  ins: ['datetime', 'cite'],
  kbd: [],
  label: ['for'],
  legend: ['align'],
  li: ['align', 'value'],
  main: ['align'],
  map: ['name'],
  mark: [],
  menu: ['type'],
  nav: ['align'],
  p: ['align'],
  pre: ['width'],
  q: ['cite'],
  rb: [],
  rp: [],
  rt: [],
  rtc: [],
  ruby: [],
  s: [],
  samp: [],
  span: ['align'],
  section: ['align'],
  small: [],
  strike: [],
  strong: [],
  sub: [],
  summary: ['align'],
  sup: [],
  table: ['align', 'bgcolor', 'border', 'cellpadding', 'cellspacing', 'rules', 'summary', 'width'],
  tbody: ['align', 'char', 'charoff', 'valign'],
  td: ['abbr', 'align', 'axis', 'bgcolor', 'char', 'charoff', 'colspan', 'headers', 'height', 'nowrap', 'rowspan', 'scope', 'valign', 'width'],
  textarea: ['cols', 'rows', 'disabled', 'name', 'readonly'],
  tfoot: ['align', 'char', 'charoff', 'valign'],
  th: ['abbr', 'align', 'axis', 'bgcolor', 'char', 'charoff', 'colspan', 'headers', 'height', 'nowrap', 'rowspan', 'scope', 'valign', 'width'],
  thead: ['align', 'char', 'charoff', 'valign'],
  title: [],
  tr: ['align', 'bgcolor', 'char', 'charoff', 'valign'],
  track: ['default', 'kind', 'label', 'src', 'srclang'],
  tt: [],
  u: [],
  ul: ['type'],
  ol: ['start', 'type', 'reversed'],
  var: [],
  video: ['autoplay', 'controls', 'height', 'loop', 'muted', 'playsinline', 'poster', 'preload', 'src', 'width'],
};

export const ALLOWED_TAGS = Object.keys(POST_TAGS);

export const ALLOWED_ATTRIBUTES: Record<string, string[]> = Object.fromEntries(
  Object.entries(POST_TAGS).map(([tag, attributes]) => [tag, [...attributes, ...GLOBAL_ATTRIBUTES]]),
);

/** `wp_allowed_protocols()`: every common link protocol except `javascript` (and `data`, `vbscript` …). */
export const ALLOWED_URL_SCHEMES = [
  'http', 'https', 'ftp', 'ftps', 'mailto', 'news', 'irc', 'irc6', 'ircs', 'gopher', 'nntp', 'feed', 'telnet', 'mms',
  'rtsp', 'sms', 'svn', 'tel', 'fax', 'xmpp', 'webcal', 'urn',
];

/** Attributes that hold a URL among those allowed above (`wp_kses_uri_attributes`): their scheme is checked. */
export const URL_ATTRIBUTES = ['href', 'src', 'cite', 'longdesc', 'poster', 'usemap'];
