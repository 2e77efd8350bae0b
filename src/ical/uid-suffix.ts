import { randomUUID } from 'node:crypto';
import type { DbTransaction } from '../db/client.js';
import { permanentSetting } from '../db/settings.js';

/** The host (and path) of the site, e.g. `calendar.example`. */
export function siteDomain(siteUrl: string): string {
  const site = new URL(siteUrl);
  return `${site.hostname}${site.pathname.replace(/\/+$/, '')}`;
}

/**
 * What follows an event's ID in its iCalendar UID, fixed once per database (the `Setting` row `ical_uid_suffix`, made
 * at start-up, so a read never writes): a database that already has events keeps the UIDs its subscribers know
 * (`<id>@<site domain>`, as they were made before this setting existed); a new one gets a random identifier. Either
 * way a later change of SITE_URL leaves UIDs alone, so calendar applications do not show events twice.
 */
export function icalUidSuffix(db: DbTransaction, siteUrl: string): Promise<string> {
  return permanentSetting(db, 'ical_uid_suffix', async () =>
    (await db.event.count({ take: 1 })) > 0 ? `@${siteDomain(siteUrl)}` : `@${randomUUID()}`,
  );
}
