import type { Db } from '../../db/client.js';
import { plainText } from '../../content/sanitize.js';
import { slugFromText } from '../../graphql/shared/slugs.js';
import { MalformedRecord, remoteImage, text, type RecordType, type RemoteImage, type RemoteRecord } from '../remote.js';
import type { Input, Mutations } from '../writer.js';

/** Finds (importing it first when needed) the local copy of a record another one links to. */
export interface LinkResolver {
  /** `linked` is the remote record as embedded in the linking one, or only its remote ID. */
  localId(type: RecordType, linked: RemoteRecord | number): Promise<number>;
  /** The media ID of an image of the source, kept with the facts the source gives (not fetched). */
  localImageId(image: RemoteImage): Promise<number>;
}

/**
 * The `image` input of a record: the media ID of its image, kept with what the source says of it rather than fetched
 * (an import may run where the source's images cannot be reached, and the source checked them when they were
 * uploaded); empty when it has none, which clears an image imported before.
 */
export async function importedImage(remote: RemoteRecord, links: LinkResolver): Promise<string> {
  const image = remoteImage(remote);
  return image ? String(await links.localImageId(image)) : '';
}

/** How one record type is read from the source and written here. */
export interface RecordKind {
  type: RecordType;
  /** The REST route listing them (`/events`) and the key of the list in its answer. */
  route: string;
  listKey: string;
  /** Posts (events, venues, organizers) have a status; authenticated imports ask for every status. */
  hasStatus: boolean;
  /** Extra list parameters (a wide date window for events, empty terms included). */
  listQuery: Record<string, string | number>;
  mutations: Mutations;
  /** The GraphQL input for a remote record; throws MalformedRecord for a record that cannot be imported. */
  toInput(remote: RemoteRecord, links: LinkResolver): Promise<Input>;
  /**
   * Local records that already are this one: same slug and name (terms: same name under the same parent, which
   * WordPress allows only once). A record created by a run stopped before it saved the origin is found this way.
   */
  twins(db: Db, input: Input): Promise<number[]>;
}

/** The fields events, venues and organizers share. */
export function postFields(remote: RemoteRecord): Input {
  return {
    slug: text(remote, 'slug') || undefined,
    description: text(remote, 'description'),
    excerpt: text(remote, 'excerpt'),
    status: text(remote, 'status').toUpperCase() || undefined,
    dateUtc: text(remote, 'date_utc') || undefined,
  };
}

/** A title or name as the schema stores it (markup removed, `&amp;` decoded: TEC renders titles as HTML). */
export function storedName(value: unknown): string {
  return plainText(String(value)).trim();
}

/** The slug a post with this input has here, unless it clashed with another one. */
export function expectedSlug(input: Input, name: string): string {
  return slugFromText((input.slug as string | undefined) ?? name);
}

/**
 * The local venues or organizers an import of `input` may be: those with its stored name and the slug it would get.
 * `find` reads the IDs of the records with this name and slug.
 */
export async function sameNameAndSlug(
  input: Input,
  find: (where: { name: string; slug: string }) => Promise<Array<{ id: number }>>,
): Promise<number[]> {
  const name = storedName(input.name);
  const rows = await find({ name, slug: expectedSlug(input, name) });
  return rows.map((row) => row.id);
}

/**
 * A password-protected record shown to a reader who may not see its content: TEC blanks the content and sets the
 * flags to null. Importing it would keep the blanks, so it is refused; the password itself is never in the API.
 */
export const locked = () =>
  new MalformedRecord(
    'password-protected on the source and its content withheld (import with credentials of a user who may edit it)',
  );
