/**
 * Writes imported records through the GraphQL schema in process, as `src/seed.ts` does: the same validation, slugs,
 * time zones and link checks as for any client. Each write runs in a context of its own (fresh loaders).
 */
import { execute, type GraphQLError, parse, type DocumentNode, type ExecutionResult } from 'graphql';
import type { Config } from '../config.js';
import type { Db } from '../db/client.js';
import { createContext, type Viewer } from '../graphql/builder.js';
import { schema } from '../graphql/schema.js';

/** The mutations that write one record type. */
export interface Mutations {
  create: string;
  update: string;
  inputType: string;
}

export type Input = Record<string, unknown>;

/**
 * A write the schema refused (bad input, unknown link …); the message is the schema's, and `fields` its reasons by
 * input field when it gave them (`{ image: 'could not be fetched …' }`).
 */
export class RefusedWrite extends Error {
  constructor(
    message: string,
    readonly fields: Record<string, string> = {},
  ) {
    super(message);
  }

  static of(errors: readonly GraphQLError[]): RefusedWrite {
    const fields = Object.assign({}, ...errors.map((error) => error.extensions?.fields ?? {}));
    return new RefusedWrite(errors.map((error) => error.message).join('; '), fields);
  }
}

/**
 * The user imports are made as: a system administrator without credentials (nobody can sign in as it), like the
 * seed's demo author. It needs to create, publish and edit others' records, manage terms and give images by URL.
 */
const IMPORTER = {
  login: 'importer',
  displayName: 'Importer (The Events Calendar)',
  email: '',
  role: 'administrator' as const,
};

export async function importerViewer(db: Db): Promise<Viewer> {
  const user = await db.user.upsert({
    where: { login: IMPORTER.login },
    create: IMPORTER,
    update: {},
    select: { id: true, login: true },
  });
  return { user: { ...user, role: 'administrator' } };
}

export class GraphQLWriter {
  private readonly documents = new Map<string, DocumentNode>();

  constructor(
    private readonly db: Db,
    private readonly config: Config,
    private readonly viewer: Viewer,
  ) {}

  async create(mutations: Mutations, input: Input): Promise<number> {
    return this.run(
      `mutation Import($input: ${mutations.inputType}!) { record: ${mutations.create}(input: $input) { id: databaseId } }`,
      { input },
    );
  }

  async update(mutations: Mutations, id: number, input: Input): Promise<number> {
    return this.run(
      `mutation Import($id: ID!, $input: ${mutations.inputType}!) { record: ${mutations.update}(id: $id, input: $input) { id: databaseId } }`,
      { id, input },
    );
  }

  /** Changes one occurrence of a series on its own: it becomes an exception that later series edits leave alone. */
  async updateOccurrence(id: number, input: Input): Promise<number> {
    return this.run(
      'mutation ImportOccurrence($id: ID!, $input: EventInput!) { record: updateEvent(id: $id, input: $input, scope: THIS) { id: databaseId } }',
      { id, input },
    );
  }

  /** Moves an event to the trash (a second delete would remove it for good). */
  async trashEvent(id: number): Promise<number> {
    return this.run('mutation ImportTrash($id: ID!) { record: deleteEvent(id: $id) { id: databaseId } }', { id });
  }

  /**
   * Makes series occurrences exist up to the end of `day` (YYYY-MM-DD): a list reaching that far materialises them
   * (past RECURRENCE_HORIZON_DAYS they exist only once something asks).
   */
  async reachOccurrences(day: string): Promise<void> {
    const source = 'query ImportReach($day: DateInput!) { events(filter: { endDate: $day }, first: 1) { totalCount } }';
    if (!this.documents.has(source)) this.documents.set(source, parse(source));
    const contextValue = createContext(this.db, this.config, this.viewer);
    const result = await execute({
      schema,
      document: this.documents.get(source)!,
      variableValues: { day },
      contextValue,
    });
    if (result.errors?.length) throw RefusedWrite.of(result.errors);
  }

  private async run(source: string, variableValues: Record<string, unknown>): Promise<number> {
    if (!this.documents.has(source)) this.documents.set(source, parse(source));
    const contextValue = createContext(this.db, this.config, this.viewer);
    const result = (await execute({
      schema,
      document: this.documents.get(source)!,
      variableValues,
      contextValue,
    })) as ExecutionResult<{ record: { id: number } }>;
    if (result.errors?.length) throw RefusedWrite.of(result.errors);
    return result.data!.record.id;
  }
}
