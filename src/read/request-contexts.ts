import type { RememberedCounts, AnswerFacts } from '../cache/tags.js';
import type { TypedDocumentNode } from '@graphql-typed-document-node/core';
import { type ExecutionResult, execute } from 'graphql';
import { authenticate, parseAuthorization, type PasswordGuesses } from '../auth/authenticate.js';
import type { SignInLimiter } from '../auth/sign-in-limits.js';
import type { Config } from '../config.js';
import type { Db } from '../db/client.js';
import { type Deadline, guardedDb, readsRecorded } from '../db/request-client.js';
import {
  type ChangeStreams,
  type Context,
  createContext,
  type SeriesExtender,
  type Viewer,
} from '../graphql/builder.js';
import { schema } from '../graphql/schema.js';
import { inProcessRoot } from '../graphql/shared/connections.js';
import type { RefusalReason } from '../logging/logger.js';

// Above the schema: a request's context holds its deadline-guarded database (src/db/request-client.ts), which the
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

/** Runs one of the typed operations in process against the schema, as REST and the public pages do. */
export async function executeInProcess<Result, Variables>(
  document: TypedDocumentNode<Result, Variables>,
  variables: Variables,
  context: Context,
): Promise<ExecutionResult<Result>> {
  return (await execute({
    schema,
    document,
    variableValues: variables as Record<string, unknown>,
    contextValue: context,
    rootValue: inProcessRoot(variables),
  })) as ExecutionResult<Result>;
}
