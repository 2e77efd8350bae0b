import type { RememberedCounts, AnswerFacts } from '../cache/tags.js';
import type { TypedDocumentNode } from '@graphql-typed-document-node/core';
import { type DocumentNode, type ExecutionResult, execute, Kind, OperationTypeNode } from 'graphql';
import { type CompiledQuery, compileQuery, isCompiledQuery } from 'graphql-jit';
import { ADMIN_CREDENTIAL_NAME, LOGIN_MAX_LENGTH } from '../auth/credentials.js';
import { credentialKey } from '../auth/credential-key.js';
import {
  isScryptHash,
  lookupOf,
  macMatches,
  macOf,
  normalizeApplicationPassword,
  TOKEN_ID_SHAPE,
  verifyAgainstDecoy,
  verifyChosenSecret,
} from '../auth/secrets.js';
import type { SignInLimiter, Throttled } from '../auth/sign-in-limits.js';
import type { Config } from '../config.js';
import type { Db } from '../db/client.js';
import { type Deadline, guardedDb, readsRecorded } from '../db/request-client.js';
import {
  type ChangeStreams,
  type Context,
  createContext,
  type SeriesExtender,
  type Viewer,
  type PasswordGuessing,
  type ViewerUser,
} from '../graphql/builder.js';
import { schema } from '../graphql/schema.js';
import { inProcessRoot } from '../graphql/shared/connections.js';
import { withPathLinks } from '../graphql/shared/path-links.js';
import type { RefusalReason } from '../logging/logger.js';
import { inOperationSpan } from '../tracing/graphql.js';

// Signing a request in and making its context. Above the schema: a request's context holds its deadline-guarded database (src/db/request-client.ts), which the
// schema's own context type does not need to know how to make; and the faces in this process (REST, the pages) run
// their operations against the schema with it (executeInProcess).

/** What the server hands each request besides itself. */
export interface RequestScope {
  deadline: Deadline;
  clientAddress: string;
  /** Cuts the request's connection, for an event stream whose client does not read its end. */
  hangUp?: () => void;
  /** Its guesses at protected records' passwords (none for the webhooks' own reads). */
  passwordGuesses?: PasswordGuesses;
  /** Set when the request is refused for too many failed sign-ins, for its log line. */
  refusal?: RefusalReason;
  /** What its answer depends on, when the response cache may keep it (src/cache/tags.ts). */
  facts?: AnswerFacts;
}

/** Why a request's credentials were refused; each face answers it in its own shape. */
export type SignInRefusal = { refused: 'invalid' } | { refused: 'rate_limited'; retryAfter: number };

/** What a refusal of credentials says, where a face words it itself (GraphQL, the pages; REST has WordPress's codes). */
export function signInRefusalMessage(refusal: SignInRefusal): string {
  if (refusal.refused === 'invalid') return 'The credentials sent are not valid.';
  return `Too many failed sign-in attempts. Try again in ${refusal.retryAfter} seconds.`;
}

/** What the request contexts are made of: the process's own parts, shared by its requests. */
export interface ContextParts {
  db: Db;
  config: Config;
  signInLimiter: SignInLimiter;
  dataVersion: () => Promise<bigint>;
  series?: SeriesExtender;
  counts?: RememberedCounts;
}

/**
 * Makes each request's context: signs the request in, within the limits on failed sign-ins
 * (src/auth/sign-in-limits.ts), and gives it its viewer, its deadline-guarded database and its password guesses. The
 * server makes one and hands it to every face (GraphQL, REST, pages), which ask it rather than the server.
 */
export class RequestContexts {
  constructor(private readonly parts: ContextParts) {}

  /** The request's viewer, or why its credentials were refused. */
  async signIn(request: Request, scope: RequestScope): Promise<{ viewer: Viewer } | SignInRefusal> {
    const result = await authenticate(
      this.parts.db,
      parseAuthorization(request.headers.get('authorization')),
      this.parts.signInLimiter,
      scope.clientAddress,
    );
    if (result.kind === 'anonymous') return { viewer: { user: null } };
    if (result.kind === 'user') return { viewer: { user: result.user, credentialId: result.credentialId } };
    if (result.kind === 'throttled') {
      scope.refusal = 'sign_in_failures';
      return { refused: 'rate_limited', retryAfter: result.retryAfter };
    }
    return { refused: 'invalid' };
  }

  /** The context of a request made by `viewer`. */
  contextOf(
    viewer: Viewer,
    scope: Pick<RequestScope, 'deadline' | 'passwordGuesses' | 'facts'>,
    changes?: ChangeStreams,
  ) {
    const { db, config, dataVersion, series, counts } = this.parts;
    const guarded = guardedDb(db, scope.deadline);
    return createContext(
      scope.facts ? readsRecorded(guarded, scope.facts, db) : guarded,
      config,
      viewer,
      dataVersion,
      changes,
      series,
      scope.passwordGuesses,
      scope.facts,
      counts,
    );
  }

  /** Signs the request in and gives its context, or why its credentials were refused. */
  async contextFor(request: Request, scope: RequestScope): Promise<Context | SignInRefusal> {
    const outcome = await this.signIn(request, scope);
    return 'viewer' in outcome ? this.contextOf(outcome.viewer, scope) : outcome;
  }
}

/** Whether contextFor refused the request's credentials. */
export const isRefusal = (outcome: Context | SignInRefusal): outcome is SignInRefusal => 'refused' in outcome;

/**
 * Runs one of the typed operations in process against the schema, as REST and the public pages do. A query is
 * compiled by graphql-jit the first time it runs, into a function that resolves its fields without walking the
 * document again: graphql-js would, for every field of every record, collect the selection, coerce the arguments and
 * wrap the result (a fifth of a page of events, bench/results.md History 27). The documents are this service's own
 * (src/read/operations), so compiling each once bounds what compiling costs. Mutations, one record at a time, run
 * with graphql-js: a compiled document is kept for the life of the process (150 KB of generated code for one holding
 * an event), and a write gains nothing worth that.
 */
export async function executeInProcess<Result, Variables>(
  document: TypedDocumentNode<Result, Variables>,
  variables: Variables,
  context: Context,
): Promise<ExecutionResult<Result>> {
  const rootValue = inProcessRoot(variables);
  const variableValues = variables as Record<string, unknown>;
  const compiled = compiledQuery(document);
  const run = compiled
    ? async () => (await compiled.query(withPathLinks(rootValue), context, variableValues)) as ExecutionResult<Result>
    : async () =>
        (await execute({
          schema,
          document,
          variableValues,
          contextValue: context,
          rootValue,
        })) as ExecutionResult<Result>;
  return inOperationSpan(document, undefined, run);
}

const compiledQueries = new WeakMap<DocumentNode, CompiledQuery | null>();

/**
 * `document` compiled against the schema, once, when it is a query (null otherwise); a document the schema refuses
 * is a defect of this service.
 */
function compiledQuery(document: DocumentNode): CompiledQuery | null {
  let compiled = compiledQueries.get(document);
  if (compiled === undefined) {
    compiled = isQuery(document) ? compile(document) : null;
    compiledQueries.set(document, compiled);
  }
  return compiled;
}

const isQuery = (document: DocumentNode) =>
  document.definitions.some(
    (definition) => definition.kind === Kind.OPERATION_DEFINITION && definition.operation === OperationTypeNode.QUERY,
  );

function compile(document: DocumentNode): CompiledQuery {
  const outcome = compileQuery(schema, document);
  if (isCompiledQuery(outcome)) return outcome;
  const reasons = (outcome.errors ?? []).map((error) => error.message).join('; ');
  throw new Error(`an in-process GraphQL document does not compile: ${reasons}`);
}

// ---------------------------------------------------------------------------------------------------------------
// Signing in

// Who a request acts for (its Authorization header checked, failed sign-ins rationed), and its guesses at protected
// records' passwords, counted with the failed sign-ins of its address (PasswordGuesses).

export type Authentication =
  | { kind: 'anonymous' }
  | { kind: 'user'; user: ViewerUser; credentialId: number }
  | { kind: 'invalid' }
  | Throttled;

/** A bearer token's ID: the random public ID tokens carry, or the row's number a token issued before those starts with. */
type TokenId = { publicId: string } | { rowId: number };

/** What an Authorization header claims, before anything is checked. */
export type Claim =
  | { scheme: 'basic'; login: string; secret: string }
  | { scheme: 'bearer'; id: TokenId | null; secret: string }
  | { scheme: 'malformed' };

const ANONYMOUS: Authentication = { kind: 'anonymous' };
const INVALID: Authentication = { kind: 'invalid' };
const USER_FIELDS = { id: true, login: true, role: true } as const;

function decodeBasic(value: string): Claim {
  const decoded = Buffer.from(value, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon <= 0) return { scheme: 'malformed' };
  return { scheme: 'basic', login: decoded.slice(0, colon), secret: decoded.slice(colon + 1) };
}

function decodeBearer(value: string): Claim {
  const [, id = '', secret = ''] = /^([^.]*)\.(.+)$/.exec(value.trim()) ?? [];
  if (TOKEN_ID_SHAPE.test(id)) return { scheme: 'bearer', id: { publicId: id }, secret };
  if (/^\d{1,12}$/.test(id)) return { scheme: 'bearer', id: { rowId: Number(id) }, secret };
  return { scheme: 'bearer', id: null, secret: value };
}

/** Reads the Authorization header: null when there is none (an anonymous reader). */
export function parseAuthorization(authorization: string | null): Claim | null {
  if (!authorization || authorization.trim() === '') return null;
  const [scheme = '', value = ''] = authorization.trim().split(/\s+(.*)/s);
  if (scheme.toLowerCase() === 'basic') return decodeBasic(value);
  if (scheme.toLowerCase() === 'bearer') return decodeBearer(value);
  return { scheme: 'malformed' };
}

/**
 * The login a claim's failures are counted under (src/auth/sign-in-limits.ts): a Basic header's, cut to one character
 * more than any login has (a longer one names nobody). A bearer token's failures count under its address only: the
 * token is unguessable, and counting under its ID would let anyone who knows the ID hold it up.
 */
function claimedLogin(claim: Claim): string | null {
  return claim.scheme === 'basic' ? claim.login.slice(0, LOGIN_MAX_LENGTH + 1) : null;
}

async function signedIn(
  db: Db,
  credentialId: number,
  user: ViewerUser,
  upgrade: { lookup?: string | null; secretHash?: string } = {},
): Promise<Authentication> {
  const used = { lastUsedAt: new Date() };
  try {
    await db.credential.update({ where: { id: credentialId }, data: { ...used, ...upgrade } });
  } catch (error) {
    // An old row's public part taken by a newer credential (all but impossible): it stays scrypt, and works.
    if ((error as { code?: string }).code !== 'P2002') throw error;
    await db.credential.update({ where: { id: credentialId }, data: used });
  }
  return { kind: 'user', user, credentialId };
}

/**
 * scrypt checks every failed sign-in with an application password costs: as many as the user with the most scrypt
 * rows holds, whoever signs in, so neither time nor answer tells which logins exist. It falls as old rows are
 * rewritten on use, to 1 or 0 (only CALENDAR_ADMIN_PASSWORD, a password a person chose, stays scrypt).
 */
async function scryptChecksPerFailure(db: Db): Promise<number> {
  const [most] = await db.credential.groupBy({
    by: ['userId'],
    where: { kind: 'application_password', lookup: null, revokedAt: null },
    _count: { userId: true },
    orderBy: { _count: { userId: 'desc' } },
    take: 1,
  });
  return most?._count.userId ?? 0;
}

/** An old row of an issued password is rewritten to the keyed form when used; a chosen password stays scrypt. */
function upgradeOf(key: Buffer, normalized: string, credentialName: string) {
  const lookup = lookupOf(normalized);
  return lookup && credentialName !== ADMIN_CREDENTIAL_NAME ? { lookup, secretHash: macOf(key, normalized) } : {};
}

/** The user's scrypt rows: passwords written before the keyed form, and CALENDAR_ADMIN_PASSWORD. */
async function byScryptPassword(db: Db, key: Buffer, login: string, normalized: string): Promise<Authentication> {
  const [rows, checks] = await Promise.all([
    db.credential.findMany({
      where: { user: { login }, kind: 'application_password', lookup: null, revokedAt: null },
      select: { id: true, name: true, secretHash: true, user: { select: USER_FIELDS } },
      orderBy: { id: 'asc' },
    }),
    scryptChecksPerFailure(db),
  ]);
  for (const row of rows) {
    if (await verifyChosenSecret(normalized, row.secretHash))
      return signedIn(db, row.id, row.user, upgradeOf(key, normalized, row.name));
  }
  for (let n = rows.length; n < checks; n++) await verifyAgainstDecoy(normalized);
  return INVALID;
}

/**
 * What the fast check of a claim settled: signed in by an issued secret (one indexed read, one HMAC), or else the
 * slow check still to make, which settles it (scrypt rows and decoys; src/auth/sign-in-limits.ts rations it).
 */
type FastCheck = { signedIn: Authentication } | { slowCheck: () => Promise<Authentication> };

/** By the password's public part and one HMAC; else the user's scrypt rows (a fixed number of checks, see scryptChecksPerFailure). */
async function byApplicationPassword(db: Db, login: string, secret: string): Promise<FastCheck> {
  const normalized = normalizeApplicationPassword(secret);
  const key = await credentialKey(db);
  const mac = macOf(key, normalized);
  const lookup = lookupOf(normalized);
  const row = lookup
    ? await db.credential.findUnique({
        where: { lookup },
        select: { id: true, kind: true, revokedAt: true, secretHash: true, user: { select: USER_FIELDS } },
      })
    : null;
  const verified = row !== null && macMatches(mac, row.secretHash);
  if (verified && row.kind === 'application_password' && row.revokedAt === null && row.user.login === login)
    return { signedIn: await signedIn(db, row.id, row.user) };
  return { slowCheck: () => byScryptPassword(db, key, login, normalized) };
}

/** Whether any bearer token is still a scrypt row: then every failure spends one scrypt check, as one on such a row does. */
async function scryptTokensRemain(db: Db): Promise<boolean> {
  return (
    (await db.credential.findFirst({
      where: { kind: 'bearer_token', revokedAt: null, secretHash: { startsWith: 'scrypt$' } },
      select: { id: true },
    })) !== null
  );
}

/** A token's row: by its public ID, or, for a token issued before those, by its number (and only such a token's). */
const tokenRow = (id: TokenId) => ('publicId' in id ? { lookup: id.publicId } : { id: id.rowId, lookup: null });

/** Found by the ID it starts with, then one HMAC (or, for a token from before the keyed form, one scrypt check). */
async function byBearerToken(db: Db, id: TokenId | null, secret: string): Promise<FastCheck> {
  const key = await credentialKey(db);
  const mac = macOf(key, secret);
  const row =
    id === null
      ? null
      : await db.credential.findFirst({
          where: { ...tokenRow(id), kind: 'bearer_token', revokedAt: null },
          select: { id: true, secretHash: true, user: { select: USER_FIELDS } },
        });
  const old = row !== null && isScryptHash(row.secretHash);
  if (row && !old && macMatches(mac, row.secretHash)) return { signedIn: await signedIn(db, row.id, row.user) };
  return {
    slowCheck: async () => {
      if (row && old && (await verifyChosenSecret(secret, row.secretHash)))
        return signedIn(db, row.id, row.user, { secretHash: mac });
      if (!old && (await scryptTokensRemain(db))) await verifyAgainstDecoy(secret);
      return INVALID;
    },
  };
}

function fastCheck(db: Db, claim: Claim): Promise<FastCheck> {
  if (claim.scheme === 'basic') return byApplicationPassword(db, claim.login, claim.secret);
  if (claim.scheme === 'bearer') return byBearerToken(db, claim.id, claim.secret);
  return byApplicationPassword(db, '', '');
}

/**
 * Checks a claim: HTTP Basic with an application password, or a Bearer token. No claim means an anonymous reader.
 * A right issued secret is proven by the fast check and never refused; anything else gets the slow check only as
 * the limits on failed sign-ins allow (`throttled` otherwise, whether or not it was right). Anything that does not
 * verify (unknown user, wrong or revoked secret, malformed header) is `invalid`, the same answer after the same work.
 */
export async function authenticate(
  db: Db,
  claim: Claim | null,
  limiter: SignInLimiter,
  address: string,
): Promise<Authentication> {
  if (!claim) return ANONYMOUS;
  const fast = await fastCheck(db, claim);
  if ('signedIn' in fast) return fast.signedIn;
  return limiter.check({ address, login: claimedLogin(claim) }, fast.slowCheck, (result) => result.kind === 'invalid');
}

/**
 * One request's guesses at the passwords of password-protected records (the `password` arguments of reads and
 * feeds). A password compared with a record's and found wrong, with none found right, is a failed guess at a secret,
 * as a wrong sign-in is: it is counted with the failed sign-ins of the client's address (SignInLimiter,
 * SIGNIN_FAILURES_PER_ADDRESS in SIGNIN_WINDOW_MS), and past that limit a request offering a password is refused
 * before anything is read or rendered. A password that no record was compared with (a list without protected
 * records, a feed remembered from an earlier request) guessed nothing and counts for nothing.
 */
export class PasswordGuesses implements PasswordGuessing {
  #wrong = false;
  #right = false;
  /** Seconds the request was told to wait, when it was refused; 0 otherwise. */
  refusedFor = 0;

  constructor(
    private readonly limiter: SignInLimiter,
    private readonly address: string,
  ) {}

  /** Before a password is taken: seconds to wait when the address is past its limit, 0 when it may be checked. */
  offer(): number {
    const wait = this.limiter.addressRetryAfter(this.address);
    if (wait > 0) this.refusedFor = wait;
    return wait;
  }

  /** A record's password was compared with the ones offered. */
  compared(matched: boolean): void {
    if (matched) this.#right = true;
    else this.#wrong = true;
  }

  /** Once the request is answered: counts its failure, if it was one. */
  settle(): void {
    if (this.#wrong && !this.#right) this.limiter.recordAddressFailure(this.address);
  }
}
