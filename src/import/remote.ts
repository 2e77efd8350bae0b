/**
 * Reading records in The Events Calendar's REST shapes (events, venues, organizers, categories, tags) defensively:
 * a site may be old, patched or half broken, so every field is checked before it is used, and a record that cannot
 * be read is refused with a reason (`MalformedRecord`) rather than imported half.
 */

import { isHttpUrl } from '../graphql/shared/validate.js';
import { mimeTypeOfExtension, type ImageFacts } from '../images/facts.js';

export type RecordType = 'category' | 'tag' | 'venue' | 'organizer' | 'event';

/** In the order an import writes them: terms, venues, organizers, then the events that link to them. */
export const RECORD_TYPES: readonly RecordType[] = ['category', 'tag', 'venue', 'organizer', 'event'];

export type RemoteRecord = Record<string, unknown>;

/** A record the source answered in a shape that cannot be imported. */
export class MalformedRecord extends Error {}

export function asRecord(value: unknown, what = 'record'): RemoteRecord {
  if (value === null || typeof value !== 'object' || Array.isArray(value))
    throw new MalformedRecord(`${what} is not an object`);
  return value as RemoteRecord;
}

/** The record's ID on the source: a positive whole number (WordPress sometimes sends it as a string). */
export function remoteIdOf(record: RemoteRecord): number {
  const id = typeof record.id === 'string' && /^\d+$/.test(record.id) ? Number(record.id) : record.id;
  if (typeof id !== 'number' || !Number.isInteger(id) || id < 1)
    throw new MalformedRecord(`"id" is not a positive whole number (${JSON.stringify(record.id) ?? 'missing'})`);
  return id;
}

/** A text field; TEC leaves empty ones out (venues, organizers) or sends `false`/`null` for them. */
export function text(record: RemoteRecord, key: string): string {
  const value = record[key];
  if (value === undefined || value === null || value === false) return '';
  if (typeof value === 'string') return value;
  if (typeof value === 'number') return String(value);
  throw new MalformedRecord(`"${key}" is not text`);
}

export function requiredText(record: RemoteRecord, key: string): string {
  const value = text(record, key);
  if (value.trim() === '') throw new MalformedRecord(`"${key}" is missing or empty`);
  return value;
}

/** A boolean flag as WordPress renders them (`true`, `"1"`, `"yes"`); undefined when absent or null. */
export function flag(record: RemoteRecord, key: string): boolean | undefined {
  const value = record[key];
  if (value === undefined || value === null) return undefined;
  if (typeof value === 'boolean') return value;
  if (value === 1 || value === '1' || value === 'yes' || value === 'true') return true;
  if (value === 0 || value === '0' || value === '' || value === 'no' || value === 'false') return false;
  throw new MalformedRecord(`"${key}" is not a boolean`);
}

/** A number that may come as a string (`geo_lat: "52.52"`); null when absent or empty. */
export function numberOrNull(record: RemoteRecord, key: string): number | null {
  const value = record[key];
  if (value === undefined || value === null || value === '' || value === false) return null;
  const number = typeof value === 'string' ? Number(value) : value;
  if (typeof number !== 'number' || !Number.isFinite(number)) throw new MalformedRecord(`"${key}" is not a number`);
  return number;
}

/** An image as the source describes it: its URL and what TEC's image object tells of it. */
export interface RemoteImage {
  url: string;
  facts: Partial<ImageFacts>;
}

/**
 * The record's image (TEC's image object, or `false` for none), or null. Its facts are the object's `width`, `height`
 * and `filesize`, and a MIME type from its `sizes` (TEC gives none for the full image) or else its extension.
 */
export function remoteImage(record: RemoteRecord): RemoteImage | null {
  const image = record.image;
  if (image === undefined || image === null || image === false || image === '') return null;
  const object = typeof image === 'string' ? { url: image } : asRecord(image, '"image"');
  const url = requiredText(object, 'url');
  if (!isHttpUrl(url)) throw new MalformedRecord(`"image" is not an http(s) URL (${JSON.stringify(url)})`);
  const whole = (key: string) =>
    typeof object[key] === 'number' && Number.isInteger(object[key]) && (object[key] as number) > 0
      ? (object[key] as number)
      : undefined;
  const sizes =
    object.sizes && typeof object.sizes === 'object' ? Object.values(object.sizes as Record<string, unknown>) : [];
  const sizeMime = sizes
    .map((size) => (size && typeof size === 'object' ? (size as Record<string, unknown>)['mime-type'] : undefined))
    .find((mime) => typeof mime === 'string');
  const extension =
    typeof object.extension === 'string'
      ? object.extension
      : (/\.([A-Za-z0-9]{1,5})$/.exec(new URL(url).pathname)?.[1] ?? '');
  const mimeType =
    (typeof sizeMime === 'string' && sizeMime.startsWith('image/') ? sizeMime : mimeTypeOfExtension(extension)) ??
    undefined;
  return { url, facts: { mimeType, width: whole('width'), height: whole('height'), filesize: whole('filesize') } };
}

/** A linked record list that TEC renders as one object, a list, or `[]`/`false` for none (an event's `venue`). */
export function linkedRecords(record: RemoteRecord, key: string): RemoteRecord[] {
  const value = record[key];
  if (value === undefined || value === null || value === false || value === '') return [];
  const list = Array.isArray(value) ? value : [value];
  return list.map((item, index) => asRecord(item, `"${key}" entry ${index + 1}`));
}

/** How failures name a record: `event 46 "Jazz night"`. */
export function describeRecord(type: RecordType, record: unknown): string {
  const fields = record && typeof record === 'object' ? (record as RemoteRecord) : {};
  const id = typeof fields.id === 'number' || typeof fields.id === 'string' ? ` ${fields.id}` : '';
  const name = [fields.title, fields.venue, fields.organizer, fields.name].find(
    (value) => typeof value === 'string' && value.trim() !== '',
  );
  return `${type}${id}${name ? ` ${JSON.stringify(name)}` : ''}`;
}
