import { DateTime } from 'luxon';
import type { PasswordGuesses } from '../auth/authenticate.js';
import { AnswerFacts } from '../cache/tags.js';
import type { ViewerUser } from '../auth/permissions.js';
import type { Config } from '../config.js';
import type { Db } from '../db/client.js';
import { readDataVersion } from '../db/data-version.js';
import type { ChangeRecordType } from '../db/change-log.js';
import type { SeenChange } from './changes/seen-change.js';
import { parseDateInput, readsTheClock } from '../time/dates.js';

/** Who is asking: a signed-in user, or an anonymous reader (user null). */
export interface Viewer {
  user: ViewerUser | null;
  /** The credential the user signed in with: a long-lived `changed` stream checks it again (src/graphql/changes/credentials.ts). */
  credentialId?: number;
}

export const ANONYMOUS: Viewer = { user: null };

/** What one request may open: one `changed` stream (src/graphql/changes/index.ts). */
export interface ChangeStreams {
  /** The changes of these kinds (every kind when empty) committed from now on (or after the cursor `after`), as `reader` sees them. */
  open(reader: Context, types: readonly ChangeRecordType[], after?: string): Promise<AsyncIterableIterator<SeenChange>>;
}

/** This process's extender of recurring series, as a request uses it (SeriesMaintainer, src/graphql/events/series-sync.ts). */
export interface SeriesExtender {
  /** Asks for the series to have rows up to `reach`; answers whether they got there while waiting up to `waitRows` rows. */
  extend(ids: number[], reach: Date, waitRows: number): Promise<boolean>;
  /** Takes over the sync of a write of `masterId` that a request began. */
  take(masterId: number): void;
  /** Takes over the series tasks a request queued. */
  takeTasks(): void;
}

/** Everything one request owns. Nothing request-scoped lives at module level. */
export interface Context {
  db: Db;
  config: Config;
  viewer: Viewer;
  /**
   * The request's time: every "now" in one request is the same instant. Asking for it makes the answer depend on the
   * clock (kept RESPONSE_CACHE_TTL_MS at most); a reader that knows when its answer changes reads `requestTime` and
   * says so to `facts`. (A method, not a getter: GraphQL Yoga copies the context's properties, reading getters once.)
   */
  now(): Date;
  /** The same instant, for a write, or for a reader that tells `facts` when its answer changes with the clock. */
  requestTime: Date;
  /** What the answer depends on, for the response cache (src/cache/tags.ts). */
  facts: AnswerFacts;
  /** A date the request sent, read in the site time zone at `now` (null when it is none); each text read once. */
  readDate(text: string): DateTime | null;
  /** Passwords the request offered for password-protected records (the `password` arguments). */
  offeredPasswords: string[];
  /** Counts those passwords as guesses of the client's (absent outside the server: seeding, importing). */
  passwordGuesses?: PasswordGuesses;
  /** The database's data version now (src/db/data-version.ts), for what is remembered across requests. */
  dataVersion: () => Promise<bigint>;
  /** The `changed` streams this request may open (absent outside /graphql). */
  changes?: ChangeStreams;
  /** This process's extender of recurring series (absent outside the server: lists then extend them themselves). */
  series?: SeriesExtender;
}

export function createContext(
  db: Db,
  config: Config,
  viewer: Viewer = ANONYMOUS,
  dataVersion: () => Promise<bigint> = () => readDataVersion(db),
  changes?: ChangeStreams,
  series?: SeriesExtender,
  passwordGuesses?: PasswordGuesses,
  facts: AnswerFacts = new AnswerFacts(),
): Context {
  const now = new Date();
  const readClock = () => facts.changesAt(now.getTime() + config.responseCache.clockBoundMs);
  return {
    db,
    config,
    viewer,
    now: () => {
      readClock();
      return now;
    },
    requestTime: now,
    facts,
    readDate: datesReadOnce(config.siteTimezone, DateTime.fromJSDate(now), readClock),
    offeredPasswords: [],
    passwordGuesses,
    dataVersion,
    changes,
    series,
  };
}

/**
 * The request's reading of the dates it sent (`start_date`, a filter's `startDate`), in the site time zone at the
 * request's time. A text is parsed once per request: REST reads it where its parameter is declared, and GraphQL's
 * filter, given the same text in the same request, gets that reading back.
 */
function datesReadOnce(zone: string, now: DateTime, readClock: () => void): (text: string) => DateTime | null {
  const read = new Map<string, DateTime | null>();
  return (text) => {
    let moment = read.get(text);
    if (moment === undefined) {
      moment = parseDateInput(text, zone, now);
      read.set(text, moment);
      if (readsTheClock(text)) readClock();
    }
    return moment;
  };
}
