/** The public page of a record on the site, as WordPress's permalinks for The Events Calendar's post types give it. */
export function pageUrl(siteUrl: string, postType: 'event' | 'venue' | 'organizer', slug: string): string {
  return `${siteUrl}/${postType}/${slug}/`;
}
