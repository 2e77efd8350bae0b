/**
 * `import`: copies the events, venues, organizers, categories and tags of a The Events Calendar site (or of another
 * instance of this service) into this one, through its REST API, writing through the GraphQL schema.
 *
 * Order: categories (parents before children), tags, venues, organizers, then events, so every link finds its
 * record. Each record is handled on its own: its origin is saved as soon as it is written, a record that cannot be
 * read or written is reported and skipped, and running again updates what changed on the source, leaves the rest
 * alone and finishes what a stopped run left undone.
 */
import type { Config } from '../config.js';
import { createDb, type Db } from '../db/client.js';
import { migrate } from '../db/migrate.js';
import { rememberImage } from '../graphql/media/index.js';
import { EVERY_STATUS, SourceClient, type SourceOptions } from './client.js';
import { eventKind } from './mapping/events.js';
import type { LinkResolver, RecordKind } from './mapping/kind.js';
import { organizerKind } from './mapping/organizers.js';
import { categoryKind, tagKind } from './mapping/terms.js';
import { venueKind } from './mapping/venues.js';
import { keepIdConflicts } from './keep-ids.js';
import { isPostType } from './post-ids.js';
import { editedSince } from '../db/change-log.js';
import { contentHash, type KnownOrigin, OriginStore } from './origins.js';
import { emptyCounts, PLURAL, type Counts, type ImportProgress, type Outcome, type TypeProgress } from './progress.js';
import {
  asRecord,
  describeRecord,
  MalformedRecord,
  RECORD_TYPES,
  remoteIdOf,
  text,
  type RecordType,
  type RemoteImage,
  type RemoteRecord,
} from './remote.js';
import { withProSeries } from './pro-series.js';
import { followsSeries, occurrenceOf, seriesFacts, type RemoteOccurrence } from './series.js';
import { GraphQLWriter, importerViewer, type Input } from './writer.js';

export interface ImportOptions extends Omit<SourceOptions, 'onRetry'> {
  /** Login of the local user the imported events, venues and organizers are attributed to (default: `importer`). */
  author?: string;
  /** Records per list request (default 50, TEC's maximum). */
  perPage?: number;
  progress?: ImportProgress;
  /** Give imported events, venues and organizers the IDs they have on the source (`--keep-ids`). */
  keepIds?: boolean;
}

/** What a scheduled source (src/import/sources/site.ts) asks of a run besides a copy. */
export interface SourceRules {
  /** The local user the events, venues and organizers are attributed to (default: `importer`). */
  authorId?: number;
  /** The status of every event written (the source's status otherwise). */
  eventStatus?: 'PUBLISH' | 'DRAFT';
  /** Category names every event gets besides its own. */
  extraCategories: string[];
  /** An event imported before that the source no longer answers: moved to the trash here, or left (and reported). */
  missingEvents: 'trash' | 'keep';
  /** A record changed here since the import last wrote it: written over from the source, or left as it is. */
  localEdits: 'overwrite' | 'keep';
}

export interface Problem {
  type: RecordType;
  /** `event 46 "Jazz night"`, or `events page 3`. */
  what: string;
  reason: string;
}

export interface ImportSummary {
  source: string;
  namespace: string;
  authenticated: boolean;
  counts: Record<RecordType, Counts>;
  /** Records (and pages) that could not be imported. */
  failures: Problem[];
  /** List pages that could not be read (among `failures` too): what they held was not seen. */
  unreadPages: Problem[];
  /** Records imported before that the source no longer answers; their copies are left as they are. */
  missing: Problem[];
  /** Records changed on the source and edited here, left as they are (a source that keeps local edits). */
  kept: Problem[];
  /** Stopped by a signal before the end. */
  interrupted: boolean;
  seconds: number;
}

/** An import that could not start (bad options); the CLI says it in one line. */
export class ImportRefused extends Error {}

const KINDS: Record<RecordType, RecordKind> = {
  category: categoryKind,
  tag: tagKind,
  venue: venueKind,
  organizer: organizerKind,
  event: eventKind,
};

/** A record another one links to could not be imported. */
class LinkFailed extends Error {}

/** A series master as imported in this run: its local ID, and what was written for it. */
interface SeriesMaster {
  localId: number;
  input: Input;
}

function reasonOf(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  const line = message.split('\n').find((l) => l.trim() !== '') ?? message;
  return line.length > 300 ? `${line.slice(0, 300)}…` : line;
}

class Importer implements LinkResolver {
  /** Records handled in this run (local ID, or null when they failed), so each is handled once. */
  private readonly handled = new Map<string, Promise<number | null>>();
  private readonly inProgress = new Set<string>();
  /** Records listed but not handled yet (categories are all listed first, for parents before children). */
  private readonly listed = new Map<string, RemoteRecord>();
  private readonly state: Record<RecordType, TypeProgress>;

  constructor(
    private readonly source: SourceClient,
    private readonly origins: OriginStore,
    private readonly writer: GraphQLWriter,
    private readonly db: Db,
    private readonly authorId: number,
    private readonly summary: ImportSummary,
    private readonly progress: ImportProgress | undefined,
    private readonly options: ImportOptions,
    /** The zone an event without one gets here (the site's). */
    private readonly siteZone: string,
    private readonly rules: SourceRules | undefined,
  ) {
    this.state = Object.fromEntries(
      RECORD_TYPES.map((type) => [type, { type, done: 0, total: null, counts: summary.counts[type] }]),
    ) as Record<RecordType, TypeProgress>;
  }

  private get stopped(): boolean {
    return this.options.signal?.aborted ?? false;
  }

  async importAll(kind: RecordKind): Promise<void> {
    const complete =
      kind.type === 'category'
        ? await this.importParentsFirst(kind)
        : kind.type === 'event'
          ? await this.importEvents(kind)
          : await this.eachPage(kind, (items) => this.importEach(kind, items));
    if (complete && !this.stopped) await this.refreshUnlisted(kind);
    this.progress?.checkpoint(this.state[kind.type], true);
  }

  /** What a list of this kind is asked with: its own parameters, and every status when signed in. */
  private listQuery(kind: RecordKind): Record<string, string | number> {
    return { ...kind.listQuery, ...(kind.hasStatus && this.source.authenticated ? { status: EVERY_STATUS } : {}) };
  }

  /** Goes through a list page by page; answers whether every page could be read. */
  private async eachPage(kind: RecordKind, onPage: (items: unknown[]) => Promise<void>): Promise<boolean> {
    const state = this.state[kind.type];
    let complete = true;
    for await (const page of this.source.pages(
      kind.route,
      kind.listKey,
      this.listQuery(kind),
      this.options.perPage ?? 50,
    )) {
      if (this.stopped) return false;
      if ('error' in page) {
        complete = false;
        this.failPage(kind.type, page.page, page.error);
        continue;
      }
      if (page.total !== null) state.total = page.total;
      await onPage(page.items);
      this.progress?.checkpoint(state, false);
    }
    return complete;
  }

  private async importEach(kind: RecordKind, items: unknown[]): Promise<void> {
    for (const item of items) {
      if (this.stopped) return;
      await this.importRecord(kind, item);
    }
  }

  /** Categories: the whole list first, so that a child listed before its parent can have the parent imported first. */
  private async importParentsFirst(kind: RecordKind): Promise<boolean> {
    const items: unknown[] = [];
    const complete = await this.eachPage(kind, async (page) => void items.push(...page));
    for (const item of items) this.remember(kind, item);
    await this.importEach(kind, items);
    return complete;
  }

  /**
   * Events: page by page from a source that exposes its series (its records carry `recurrence`, as this service's
   * do); from any other, the whole list first, to find The Events Calendar Pro's series in it (src/import/pro-series.ts).
   */
  private async importEvents(kind: RecordKind): Promise<boolean> {
    const listed: unknown[] = [];
    let exposesSeries: boolean | undefined;
    const complete = await this.eachPage(kind, async (items) => {
      exposesSeries ??= items.some((item) => item !== null && typeof item === 'object' && 'recurrence' in item);
      if (exposesSeries) await this.importEach(kind, items);
      else listed.push(...items);
    });
    if (exposesSeries || this.stopped) return complete;
    const knownParents = await this.seriesImportedBefore();
    const { events, unresolved } = await withProSeries(listed, (parentId) => this.childrenOf(parentId), {
      siteZone: this.siteZone,
      knownParents,
    });
    for (const group of unresolved) for (const record of group.records) this.refuse(kind, record, group.reason);
    for (const item of events) this.remember(kind, item);
    await this.importEach(kind, events);
    return complete;
  }

  /** The source's events whose copies here are series masters. */
  private async seriesImportedBefore(): Promise<Set<number>> {
    const masters = await this.db.event.findMany({ where: { isSeriesMaster: true }, select: { id: true } });
    const localIds = new Set(masters.map((master) => master.id));
    return new Set(
      this.origins.remoteIds('event').filter((remoteId) => localIds.has(this.origins.get('event', remoteId)!.localId)),
    );
  }

  /** The events whose `post_parent` is `parentId` (a Pro series' children), asked as the events list is. */
  private async childrenOf(parentId: number): Promise<unknown[]> {
    const children: unknown[] = [];
    const query = { ...this.listQuery(eventKind), post_parent: parentId };
    for await (const page of this.source.pages(eventKind.route, eventKind.listKey, query, this.options.perPage ?? 50)) {
      // Older TEC versions answer an empty list with a 404 (`event-archive-page-not-found`), later ones with `[]`.
      if ('error' in page && page.page === 1 && page.error.status === 404) return [];
      if ('error' in page) throw page.error;
      children.push(...page.items);
    }
    return children;
  }

  /** A record not imported in this run, for a reason found before it was read; handled, so nothing asks for it again. */
  private refuse(kind: RecordKind, record: RemoteRecord, reason: string): void {
    this.handled.set(`${kind.type}:${remoteIdOf(record)}`, Promise.resolve(null));
    this.fail(kind.type, describeRecord(kind.type, record), new Error(reason));
  }

  private remember(kind: RecordKind, item: unknown): void {
    try {
      const record = asRecord(item);
      this.listed.set(`${kind.type}:${remoteIdOf(record)}`, record);
    } catch {
      // reported when it is imported
    }
  }

  /**
   * Records imported before that the list did not show: events hidden from listings (TEC never lists them), records
   * moved to the trash or deleted on the source. Each is asked for by its ID and updated, or reported missing.
   */
  private async refreshUnlisted(kind: RecordKind): Promise<void> {
    for (const remoteId of this.origins.remoteIds(kind.type)) {
      if (this.stopped) return;
      if (this.handled.has(`${kind.type}:${remoteId}`)) continue;
      try {
        const answer = await this.source.getOne(`${kind.route}/${remoteId}`);
        if ('record' in answer) await this.importRecord(kind, answer.record);
        else if (kind.type === 'event' && this.rules?.missingEvents === 'trash') await this.trashMissing(remoteId);
        else
          this.count(kind.type, 'missing', {
            type: kind.type,
            what: `${kind.type} ${remoteId}`,
            reason: answer.missing,
          });
      } catch (error) {
        this.fail(kind.type, `${kind.type} ${remoteId}`, error);
      }
    }
  }

  /**
   * An event the source no longer answers, for a source that trashes those: moved to the trash here (unless it is
   * there already) and forgotten, so that later runs do not ask for it again (should it come back, it is found by its
   * slug and title and taken out of the trash).
   */
  private async trashMissing(remoteId: number): Promise<void> {
    const { localId } = this.origins.get('event', remoteId)!;
    const event = await this.db.event.findUnique({ where: { id: localId }, select: { status: true } });
    if (event && event.status !== 'trash') {
      await this.writer.trashEvent(localId);
      this.count('event', 'trashed');
    }
    await this.origins.forget('event', remoteId);
  }

  /** Imports one listed or linked record once per run; answers its local ID, or null when it failed. */
  async importRecord(kind: RecordKind, item: unknown): Promise<number | null> {
    let record: RemoteRecord;
    let remoteId: number;
    try {
      record = asRecord(item);
      remoteId = remoteIdOf(record);
    } catch (error) {
      this.fail(kind.type, describeRecord(kind.type, item), error);
      return null;
    }
    const key = `${kind.type}:${remoteId}`;
    let result = this.handled.get(key);
    if (!result) {
      this.inProgress.add(key);
      result = this.write(kind, remoteId, record).finally(() => this.inProgress.delete(key));
      this.handled.set(key, result);
    }
    return result;
  }

  private async write(kind: RecordKind, remoteId: number, record: RemoteRecord): Promise<number | null> {
    try {
      const occurrence = kind.type === 'event' ? occurrenceOf(record) : null;
      const input = this.withRules(kind, await kind.toInput(record, this));
      const series = occurrence ? await this.master(occurrence.seriesId) : null;
      const hash = contentHash(series ? { ...input, series: seriesFacts(series.input) } : input);
      const known = this.origins.get(kind.type, remoteId);
      if (known?.contentHash === hash) {
        this.count(kind.type, 'unchanged');
        return known.localId;
      }
      if (occurrence) return await this.writeOccurrence(remoteId, record, occurrence, series!, input, hash);
      if (known && (await this.keptAsEdited(kind.type, known, describeRecord(kind.type, record)))) return known.localId;
      const target = known?.localId ?? (await this.unclaimedTwin(kind, input));
      const written = { ...input, ...(kind.hasStatus ? { authorId: this.authorId } : {}) };
      const writtenId =
        target === undefined
          ? await this.writer.create(kind.mutations, written)
          : await this.writer.update(kind.mutations, target, written);
      // A copy made before keeps its ID; a new one (or an adopted twin) takes the source's with --keep-ids.
      const keepsSourceId = this.options.keepIds === true && known === undefined && isPostType(kind.type);
      const localId = keepsSourceId ? remoteId : writtenId;
      await this.origins
        .save(kind.type, remoteId, { localId, contentHash: hash }, text(record, 'modified_utc') || null, writtenId)
        .catch((error: unknown) => {
          throw keepsSourceId ? new Error(`could not keep its ID ${remoteId}: ${keptIdProblem(error)}`) : error;
        });
      this.count(kind.type, target === undefined ? 'created' : 'updated');
      return localId;
    } catch (error) {
      this.fail(kind.type, describeRecord(kind.type, record), error);
      return null;
    }
  }

  /** Series masters read from the source in this run, by remote ID (each occurrence compares itself with its series). */
  private readonly masters = new Map<number, Promise<SeriesMaster>>();

  private master(remoteId: number): Promise<SeriesMaster> {
    let master = this.masters.get(remoteId);
    if (!master) {
      master = (async () => {
        // A Pro series' parent is listed, with the `recurrence` found for it; it is not asked for again.
        const listed = this.listed.get(`event:${remoteId}`);
        const answer = listed ? { record: listed } : await this.source.getOne(`${eventKind.route}/${remoteId}`);
        if ('missing' in answer)
          throw new LinkFailed(`its series ${remoteId} is not on the source (${answer.missing})`);
        const localId = await this.importRecord(eventKind, answer.record);
        if (localId === null) throw new LinkFailed(`its series ${remoteId} could not be imported`);
        return { localId, input: await eventKind.toInput(answer.record, this) };
      })();
      this.masters.set(remoteId, master);
    }
    return master;
  }

  /**
   * An occurrence of a series on the source: the series is imported (as a series), and the occurrence is the local
   * one with the same original start, written only when it differs from its series (src/import/series.ts).
   */
  private async writeOccurrence(
    remoteId: number,
    record: RemoteRecord,
    occurrence: RemoteOccurrence,
    series: SeriesMaster,
    input: Input,
    hash: string,
  ): Promise<number> {
    const find = () =>
      this.db.event.findFirst({
        where: { recurringEventId: series.localId, originalStartLocal: occurrence.originalStart },
        select: { id: true },
      });
    let local = await find();
    if (!local) {
      await this.writer.reachOccurrences(occurrence.originalStart.slice(0, 10));
      local = await find();
    }
    if (!local)
      throw new MalformedRecord(
        `its series ${occurrence.seriesId} has no occurrence at ${occurrence.originalStart} here (not in its rule)`,
      );
    const changed = !followsSeries(input, series.input, occurrence.originalStart);
    const known = this.origins.get('event', remoteId);
    if (changed && known && (await this.keptAsEdited('event', known, describeRecord('event', record))))
      return known.localId;
    if (changed) {
      const { slug: _slug, recurrence: _recurrence, ...fields } = input;
      await this.writer.update(eventKind.mutations, local.id, { ...fields, authorId: this.authorId });
    }
    await this.origins.save(
      'event',
      remoteId,
      { localId: local.id, contentHash: hash },
      text(record, 'modified_utc') || null,
    );
    this.count('event', known ? 'updated' : 'created');
    return local.id;
  }

  /** A scheduled source's status and categories on an event (part of what is hashed: changing them rewrites it). */
  private withRules(kind: RecordKind, input: Input): Input {
    if (kind.type !== 'event' || !this.rules) return input;
    const categories = [...(input.categories as string[]), ...this.rules.extraCategories];
    return { ...input, categories, ...(this.rules.eventStatus ? { status: this.rules.eventStatus } : {}) };
  }

  /**
   * For a source that keeps local edits: whether the record was changed here after the import last wrote it (the
   * change log has a later entry for it); then it is left as it is, and reported.
   */
  private async keptAsEdited(type: RecordType, known: KnownOrigin, what: string): Promise<boolean> {
    if (this.rules?.localEdits !== 'keep' || known.writtenSeq === null) return false;
    const written = { seq: known.writtenSeq, at: known.writtenAt };
    if (!(await editedSince(this.db, type, known.localId, written))) return false;
    this.count(type, 'kept', { type, what, reason: 'edited here since it was imported: kept as it is' });
    return true;
  }

  private async unclaimedTwin(kind: RecordKind, input: Input): Promise<number | undefined> {
    return (await kind.twins(this.db, input)).find((id) => !this.origins.isClaimed(kind.type, id));
  }

  /** LinkResolver: the source's image kept with the facts it gives; a URL known already keeps its record. */
  localImageId(image: RemoteImage): Promise<number> {
    return rememberImage(this.db, image.url, image.facts);
  }

  /** LinkResolver: the local ID of a linked record, importing it first when this run has not yet. */
  async localId(type: RecordType, linked: RemoteRecord | number): Promise<number> {
    const remoteId = typeof linked === 'number' ? linked : remoteIdOf(linked);
    const key = `${type}:${remoteId}`;
    if (this.inProgress.has(key)) throw new MalformedRecord(`${type} ${remoteId} is its own ancestor`);
    const localId = this.handled.has(key)
      ? await this.handled.get(key)!
      : await this.importLinked(type, remoteId, linked);
    if (localId === null) throw new LinkFailed(`its ${type} ${remoteId} could not be imported`);
    return localId;
  }

  /** A linked record not handled yet: from its list, as embedded in the linking record, or asked for by ID. */
  private async importLinked(
    type: RecordType,
    remoteId: number,
    linked: RemoteRecord | number,
  ): Promise<number | null> {
    const kind = KINDS[type];
    const record = this.listed.get(`${type}:${remoteId}`) ?? (typeof linked === 'number' ? undefined : linked);
    if (record) return this.importRecord(kind, record);
    const known = this.origins.get(type, remoteId);
    if (known) return known.localId;
    const answer = await this.source.getOne(`${kind.route}/${remoteId}`);
    if ('missing' in answer) throw new LinkFailed(`its ${type} ${remoteId} is not on the source (${answer.missing})`);
    return this.importRecord(kind, answer.record);
  }

  private count(type: RecordType, outcome: Outcome, problem?: Problem): void {
    const state = this.state[type];
    state.counts[outcome]++;
    state.done++;
    if (problem) this.problemsOf(outcome).push(problem);
    this.progress?.update(state);
  }

  private problemsOf(outcome: Outcome): Problem[] {
    if (outcome === 'missing') return this.summary.missing;
    if (outcome === 'kept') return this.summary.kept;
    return this.summary.failures;
  }

  private fail(type: RecordType, what: string, error: unknown): void {
    if (!this.stopped) this.count(type, 'failed', { type, what, reason: reasonOf(error) });
  }

  /** A page that could not be read: its records are not counted (the source did not say which they are). */
  private failPage(type: RecordType, page: number, error: unknown): void {
    if (this.stopped) return;
    const problem = { type, what: `${PLURAL[type]} page ${page}`, reason: reasonOf(error) };
    this.summary.failures.push(problem);
    this.summary.unreadPages.push(problem);
    this.progress?.warn(`${problem.what}: ${problem.reason}`);
  }
}

/** Why a source ID could not be kept: the database's own words when it refused an ID another post has. */
function keptIdProblem(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return /already used by another event, venue or organizer/.test(message)
    ? 'another event, venue or organizer here has it'
    : reasonOf(error);
}

function conflictList(conflicts: string[]): string {
  const shown = conflicts.slice(0, 5).join('; ');
  return conflicts.length > 5 ? `${shown}; and ${conflicts.length - 5} more` : shown;
}

async function authorIdFor(db: Db, login: string | undefined, importerId: number): Promise<number> {
  if (login === undefined) return importerId;
  const user = await db.user.findUnique({ where: { login }, select: { id: true } });
  if (!user) throw new ImportRefused(`no local user with login "${login}" (see: users list)`);
  return user.id;
}

/** Runs a whole import and answers its summary. Throws SourceUnavailable or ImportRefused when it cannot start. */
export async function runImport(config: Config, options: ImportOptions): Promise<ImportSummary> {
  const source = await SourceClient.connect({ ...options, onRetry: (message) => options.progress?.warn(message) });
  await migrate(config);
  const db = createDb(config);
  try {
    return await importSite(db, config, source, options);
  } finally {
    options.progress?.stop();
    await db.$disconnect();
  }
}

/**
 * Imports a connected site into `db` (`import`, or a scheduled source's run with its `rules`). Throws ImportRefused
 * when it cannot start.
 */
export async function importSite(
  db: Db,
  config: Config,
  source: SourceClient,
  options: ImportOptions,
  rules?: SourceRules,
): Promise<ImportSummary> {
  const started = Date.now();
  const summary: ImportSummary = {
    source: source.key,
    namespace: source.namespace,
    authenticated: source.authenticated,
    counts: Object.fromEntries(RECORD_TYPES.map((type) => [type, emptyCounts()])) as Record<RecordType, Counts>,
    failures: [],
    unreadPages: [],
    missing: [],
    kept: [],
    interrupted: false,
    seconds: 0,
  };
  const origins = await OriginStore.load(db, source.key);
  if (options.keepIds) {
    const conflicts = await keepIdConflicts(
      source,
      [venueKind, organizerKind, eventKind],
      origins,
      db,
      options.perPage ?? 50,
    );
    if (conflicts.length) throw new ImportRefused(`--keep-ids: nothing was imported, ${conflictList(conflicts)}`);
  }
  const viewer = await importerViewer(db);
  const authorId = rules?.authorId ?? (await authorIdFor(db, options.author, viewer.user!.id));
  const importer = new Importer(
    source,
    origins,
    new GraphQLWriter(db, config, viewer),
    db,
    authorId,
    summary,
    options.progress,
    options,
    config.siteTimezone,
    rules,
  );
  for (const type of RECORD_TYPES) {
    if (options.signal?.aborted) break;
    await importer.importAll(KINDS[type]);
  }
  summary.interrupted = options.signal?.aborted ?? false;
  summary.seconds = (Date.now() - started) / 1000;
  return summary;
}
