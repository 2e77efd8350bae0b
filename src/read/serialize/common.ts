import { DateTime } from 'luxon';
import type { RestImageFragment } from '../operations/generated/graphql.js';
import { globalId, type RestUrls } from '../urls.js';

export const WALL_CLOCK = 'yyyy-MM-dd HH:mm:ss';

/** `2017-01-05 14:23:36` → the six zero-padded string parts TEC returns. */
export function dateDetails(wallClock: string) {
  const [date = '', time = ''] = wallClock.split(' ');
  const [year, month, day] = date.split('-');
  const [hour, minutes, seconds] = time.split(':');
  return { year, month, day, hour, minutes, seconds };
}

/** An ISO instant rendered as TEC's UTC wall clock. */
export function utcWallClock(iso: string): string {
  // The DateTime scalar always answers `toISOString()` (UTC, `Z`); the common case needs no date library.
  if (/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/.test(iso)) return `${iso.slice(0, 10)} ${iso.slice(11, 19)}`;
  return DateTime.fromISO(iso, { zone: 'utc' }).toFormat(WALL_CLOCK);
}

export function authorString(authorId: number | null | undefined): string {
  return String(authorId ?? 0);
}

export function globalIds(urls: RestUrls, id: number) {
  const value = globalId(urls, id);
  return { global_id: value, global_id_lineage: [value] };
}

/**
 * TEC's image object (§2.5) with the fields this service knows, in its order; like TEC it drops empty keys (an image
 * kept before images were fetched has no width, height or size; there are never `sizes`: no smaller copies are made).
 */
export function imageObject(image: RestImageFragment | null | undefined) {
  if (!image) return false as const;
  const { url, id, extension, width, height, filesize } = image;
  return { url, id, ...withoutEmpty({ extension, width, height, filesize }) };
}

/** TEC drops every falsy entry from venue and organizer arrays (`""`, `false`, `"0"`, …). */
export function withoutEmpty<T extends Record<string, unknown>>(record: T): Partial<T> {
  return Object.fromEntries(
    Object.entries(record).filter(
      ([, value]) => value !== '' && value !== false && value !== '0' && value !== null && value !== undefined,
    ),
  ) as Partial<T>;
}

/** The post fields every record starts with. */
export function postDates(record: {
  publishedLocal: string;
  publishedAt: string;
  modifiedLocal: string;
  modifiedAt: string;
}) {
  return {
    date: record.publishedLocal,
    date_utc: utcWallClock(record.publishedAt),
    modified: record.modifiedLocal,
    modified_utc: utcWallClock(record.modifiedAt),
  };
}
