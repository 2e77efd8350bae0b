import {
  addSource,
  removeSource,
  type RunReport as Report,
  runSourceSoon,
  SourceInputError,
} from '../../db/import-sources.js';
import { requireCapability } from '../access.js';
import { builder } from '../builder.js';
import { FieldErrors, NotFoundError } from '../errors.js';
import { PostStatusEnum } from '../shared/posts.js';
import { databaseIdField, databaseIdOf, globalIdField, NodeInterface, registerNodeReader } from '../shared/node.js';

// Import sources (docs/import.md#import-sources): administrators only, as on the command line (`sources …`). The
// server's scheduler runs them (src/import/sources/schedule.ts); here they are made, read, asked to run and removed.

const SourceKindEnum = builder.enumType('ImportSourceKind', {
  description: 'What an import source reads.',
  values: {
    ICAL: { value: 'ical', description: 'An iCalendar feed (`.ics`, `webcal://`).' },
    SITE: {
      value: 'site',
      description: 'The REST API of a site running The Events Calendar, or of this service (its REST root).',
    },
  },
});

const MissingPolicyEnum = builder.enumType('ImportMissingPolicy', {
  description: 'What becomes of an imported event that left the feed (or that the site no longer answers).',
  values: {
    TRASH: { value: 'trash', description: 'Moved to the trash.' },
    KEEP: { value: 'keep', description: 'Left as it is.' },
  },
});

const LocalEditsPolicyEnum = builder.enumType('ImportLocalEditsPolicy', {
  description: 'Whether an imported event edited here since is updated from the feed.',
  values: {
    OVERWRITE: { value: 'overwrite', description: 'Updated from the feed: the feed wins.' },
    KEEP: { value: 'keep', description: 'Kept as edited here (reported as skipped).' },
  },
});

const ImportProblemType = builder.objectRef<Report['problems'][number]>('ImportProblem').implement({
  description: 'Something of the feed or site not imported, and why.',
  fields: (t) => ({
    where: t.exposeString('where', { description: 'The line of the feed, the event (`event <UID>`) or property.' }),
    reason: t.exposeString('reason', { description: 'Why.' }),
  }),
});

const ImportRunReportType = builder.objectRef<Report>('ImportRunReport').implement({
  description: 'What one run of a source did.',
  fields: (t) => ({
    notModified: t.exposeBoolean('notModified', { description: 'The feed answered 304: nothing was read.' }),
    created: t.exposeInt('created', { description: 'Events created.' }),
    updated: t.exposeInt('updated', { description: 'Events (and changed occurrences) updated.' }),
    trashed: t.exposeInt('trashed', { description: 'Events moved to the trash: gone from the feed, or cancelled.' }),
    unchanged: t.exposeInt('unchanged', { description: 'Events the feed had not changed: not written.' }),
    skipped: t.exposeInt('skipped', { description: 'Events not written: edited here, or not importable.' }),
    failed: t.exposeInt('failed', { description: 'Events the schema refused (see `problems`).' }),
    problems: t.field({ type: [ImportProblemType], resolve: (report) => report.problems, description: 'Why.' }),
  }),
});

const ImportSourceType = builder.prismaObject('ImportSource', {
  description:
    'An iCalendar feed or a site the calendar imports from, on its schedule and when asked (administrators only).',
  interfaces: [NodeInterface],
  fields: (t) => ({
    id: t.globalID(globalIdField('ImportSource')),
    databaseId: t.exposeInt('id', databaseIdField('ImportSource')),
    kind: t.field({
      type: SourceKindEnum,
      nullable: true,
      description: 'What the URL is; null until the first run found out.',
      resolve: (source) => source.kind as 'ical' | 'site' | null,
    }),
    url: t.exposeString('url', {
      description: 'The feed’s URL (`webcal://` is fetched over https), or the site’s REST root.',
    }),
    everySeconds: t.exposeInt('everySeconds', {
      nullable: true,
      description: 'Seconds between scheduled runs; null: only when asked (`runImportSource`).',
    }),
    eventStatus: t.field({
      type: PostStatusEnum,
      description: 'The status of the events it creates: PUBLISH or DRAFT.',
      resolve: (source) => source.eventStatus as 'publish' | 'draft',
    }),
    categories: t.stringList({
      description: 'Categories every event it writes gets besides the feed’s own.',
      resolve: (source) => source.categories.split(',').filter(Boolean),
    }),
    onMissing: t.field({
      type: MissingPolicyEnum,
      description: 'What becomes of an imported event that left the feed.',
      resolve: (source) => source.onMissing as 'trash' | 'keep',
    }),
    localEdits: t.field({
      type: LocalEditsPolicyEnum,
      description: 'Whether an event edited here since it was imported is updated from the feed.',
      resolve: (source) => source.localEdits as 'overwrite' | 'keep',
    }),
    lastRunAt: t.expose('lastRunAt', { type: 'DateTime', nullable: true, description: 'When it last ran.' }),
    nextRunAt: t.expose('nextRunAt', {
      type: 'DateTime',
      nullable: true,
      description: 'When the server runs it next; null for a source run only when asked.',
    }),
    lastError: t.exposeString('lastError', {
      nullable: true,
      description:
        'Why the last run failed (the feed or site could not be fetched or read, or a site answered only part of its lists); null when it did not.',
    }),
    failures: t.exposeInt('failures', { description: 'Runs failed in a row (each waits longer before the next).' }),
    lastRun: t.field({
      type: ImportRunReportType,
      nullable: true,
      description: 'What its last run that read the feed or site did; null before the first.',
      resolve: (source) => (source.lastReport ? (JSON.parse(source.lastReport) as Report) : null),
    }),
  }),
});

registerNodeReader('ImportSource', (ctx, id, query) => {
  requireCapability(ctx, 'manage_imports');
  return ctx.db.importSource.findUnique({ ...query, where: { id } });
});

const ImportSourceInput = builder.inputType('ImportSourceInput', {
  description: 'A feed or a site to import from.',
  fields: (t) => ({
    url: t.string({
      required: true,
      description: 'An http, https or webcal URL of an iCalendar feed, or the REST root of a site (or its home page).',
    }),
    kind: t.field({
      type: SourceKindEnum,
      description: 'Left out: the first run finds out from what the URL answers.',
    }),
    everySeconds: t.int({ description: 'Run every so many seconds (at least 300); left out: only when asked.' }),
    eventStatus: t.field({ type: PostStatusEnum, description: 'PUBLISH (the default) or DRAFT.' }),
    categories: t.stringList({ description: 'Category names every event gets.' }),
    authorLogin: t.string({ description: 'The local user the events belong to (default: `importer`).' }),
    onMissing: t.field({ type: MissingPolicyEnum, description: 'TRASH (the default) or KEEP.' }),
    localEdits: t.field({ type: LocalEditsPolicyEnum, description: 'OVERWRITE (the default) or KEEP.' }),
  }),
});

const sourceId = (id: string | number) => databaseIdOf('ImportSource', id, 'id');

builder.queryFields((t) => ({
  importSources: t.prismaField({
    type: [ImportSourceType],
    description: 'Every import source, oldest first (administrators only).',
    resolve: (query, _root, _args, ctx) => {
      requireCapability(ctx, 'manage_imports');
      return ctx.db.importSource.findMany({ ...query, orderBy: { id: 'asc' } });
    },
  }),
}));

builder.mutationFields((t) => ({
  addImportSource: t.prismaField({
    type: ImportSourceType,
    description: 'Administrators only. Adds a source; the server runs it within FEED_CHECK_MS, then on its schedule.',
    args: { input: t.arg({ type: ImportSourceInput, required: true, description: 'The feed and its settings.' }) },
    resolve: async (query, _root, { input }, ctx) => {
      requireCapability(ctx, 'manage_imports');
      const source = await addSource(ctx.db, {
        url: input.url,
        kind: input.kind ?? undefined,
        everySeconds: input.everySeconds,
        status: input.eventStatus ?? undefined,
        categories: input.categories ?? undefined,
        authorLogin: input.authorLogin ?? undefined,
        onMissing: input.onMissing ?? undefined,
        localEdits: input.localEdits ?? undefined,
        firstRunAt: new Date(),
      }).catch((error: unknown) => {
        if (!(error instanceof SourceInputError)) throw error;
        const errors = new FieldErrors();
        errors.add('input', error.message);
        errors.throwIfAny();
        throw error;
      });
      return ctx.db.importSource.findUniqueOrThrow({ ...query, where: { id: source.id } });
    },
  }),
  runImportSource: t.prismaField({
    type: ImportSourceType,
    description: 'Administrators only. Asks the server to run the source now (within FEED_CHECK_MS).',
    args: { id: t.arg.id({ required: true, description: 'The source’s global ID or database ID.' }) },
    resolve: async (query, _root, args, ctx) => {
      requireCapability(ctx, 'manage_imports');
      const id = sourceId(args.id);
      if (!(await runSourceSoon(ctx.db, id))) throw new NotFoundError('ImportSource', id);
      return ctx.db.importSource.findUniqueOrThrow({ ...query, where: { id } });
    },
  }),
  removeImportSource: t.boolean({
    description: 'Administrators only. Stops importing from the source (its events stay); false when there was none.',
    args: { id: t.arg.id({ required: true, description: 'The source’s global ID or database ID.' }) },
    resolve: (_root, args, ctx) => {
      requireCapability(ctx, 'manage_imports');
      return removeSource(ctx.db, sourceId(args.id));
    },
  }),
}));
