import { invalidParams } from '../errors.js';
import { MAX_INT } from '../../graphql/shared/ids.js';
import { parseWpBoolean, type LinkedValue } from '../params.js';
import { graphqlStatus } from '../../read/serialize.js';

/** REST venue fields → GraphQL VenueInput fields. */
export const VENUE_FIELDS: Record<string, string> = {
  venue: 'name',
  description: 'description',
  excerpt: 'excerpt',
  slug: 'slug',
  status: 'status',
  author: 'authorId',
  date: 'date',
  date_utc: 'dateUtc',
  address: 'address',
  city: 'city',
  country: 'country',
  province: 'province',
  state: 'state',
  zip: 'zip',
  phone: 'phone',
  stateprovince: 'stateProvince',
  website: 'website',
  show_map: 'showMap',
  show_map_link: 'showMapLink',
  image: 'image',
  geo_lat: 'latitude',
  geo_lng: 'longitude',
};

/** REST organizer fields → GraphQL OrganizerInput fields. */
export const ORGANIZER_FIELDS: Record<string, string> = {
  organizer: 'name',
  description: 'description',
  excerpt: 'excerpt',
  slug: 'slug',
  status: 'status',
  author: 'authorId',
  date: 'date',
  date_utc: 'dateUtc',
  phone: 'phone',
  website: 'website',
  email: 'email',
  image: 'image',
};

const BOOLEAN_FIELDS = new Set(['showMap', 'showMapLink']);
const INTEGER_FIELDS = new Set(['authorId']);
const NUMBER_FIELDS = new Set(['latitude', 'longitude']);

/**
 * A venue or organizer object as REST clients send it, as GraphQL input. Values are coerced the WordPress way;
 * a value that cannot be makes the whole parameter invalid (`param`).
 */
export function linkedRecordInput(
  record: Record<string, unknown>,
  fields: Record<string, string>,
  param: string,
): Record<string, unknown> {
  const input: Record<string, unknown> = {};
  for (const [rest, gql] of Object.entries(fields)) {
    const value = record[rest];
    if (value === undefined) continue;
    if (BOOLEAN_FIELDS.has(gql)) {
      const flag = parseWpBoolean(value);
      if (flag === null) throw invalidParams({ [param]: 'Invalid parameter.' });
      input[gql] = flag;
    } else if (INTEGER_FIELDS.has(gql) || NUMBER_FIELDS.has(gql)) {
      const n = Number(value);
      if (
        value === '' ||
        !Number.isFinite(n) ||
        (INTEGER_FIELDS.has(gql) && !(Number.isInteger(n) && Math.abs(n) <= MAX_INT))
      ) {
        throw invalidParams({ [param]: 'Invalid parameter.' });
      }
      input[gql] = n;
    } else if (typeof value === 'string' || typeof value === 'number') {
      input[gql] = gql === 'status' ? graphqlStatus(String(value)) : String(value);
    } else {
      throw invalidParams({ [param]: 'Invalid parameter.' });
    }
  }
  return input;
}

/** `venue` / `organizer` on an event write: IDs, `{id}` objects, or objects of fields for new (or matching) records. */
export function linksInput(values: LinkedValue[], fields: Record<string, string>, param: string) {
  return values.map((value) => {
    if (typeof value === 'number') return { id: value };
    const id = value.id;
    if (id !== undefined && id !== '' && Object.keys(value).length === 1) {
      const n = Number(id);
      if (!Number.isInteger(n) || n <= 0 || n > MAX_INT) throw invalidParams({ [param]: 'Invalid parameter.' });
      return { id: n };
    }
    // New records avoid duplicates, as TEC's linked-post endpoints do: an existing equal venue or organizer is reused.
    return { newUnlessDuplicate: linkedRecordInput(value, fields, param) };
  });
}
