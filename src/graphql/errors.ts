import { GraphQLError } from 'graphql';

/**
 * The error codes the API answers with, in `extensions.code`. The REST layer maps them to WordPress error bodies.
 */
export const ErrorCode = {
  invalidInput: 'BAD_USER_INPUT',
  notFound: 'NOT_FOUND',
  forbidden: 'FORBIDDEN',
  unauthenticated: 'UNAUTHENTICATED',
  conflict: 'CONFLICT',
  /** Deleting what is already in the trash. */
  alreadyTrashed: 'ALREADY_TRASHED',
  /** A change cursor that is unknown or expired: read everything again (src/graphql/changes/cursor.ts). */
  resyncRequired: 'RESYNC_REQUIRED',
  /** A `changed` stream past SUBSCRIPTIONS_PER_CLIENT or SUBSCRIPTIONS_PER_PROCESS (src/graphql/changes/live.ts). */
  tooManySubscriptions: 'TOO_MANY_SUBSCRIPTIONS',
  /** A list reaches further than its recurring series' occurrences exist yet: they are being added; ask again. */
  occurrencesPending: 'OCCURRENCES_PENDING',
  /** A `changed` stream asked of a process that is shutting down: 503, ask again (src/graphql/changes/live.ts). */
  shuttingDown: 'SHUTTING_DOWN',
  /** graphql-sse's single connection mode, which this service does not speak (src/graphql/changes/event-stream.ts). */
  singleConnectionModeUnsupported: 'SINGLE_CONNECTION_MODE_UNSUPPORTED',
  /** Too many failed attempts at a secret from this client lately; `retryAfter` seconds. */
  rateLimited: 'RATE_LIMITED',
} as const;

/** Bad input: `fields` maps each offending input field (its GraphQL name) to a message a person can act on. */
export class InputError extends GraphQLError {
  constructor(
    public readonly fields: Record<string, string>,
    details: Record<string, unknown> = {},
  ) {
    super(
      Object.entries(fields)
        .map(([field, message]) => `${field}: ${message}`)
        .join('; '),
      {
        extensions: { code: ErrorCode.invalidInput, fields, ...details },
      },
    );
  }
}

export function invalidField(field: string, message: string): InputError {
  return new InputError({ [field]: message });
}

/** A record that does not exist (or, later, that the viewer may not know exists). */
export class NotFoundError extends GraphQLError {
  constructor(recordType: string, id: number | string) {
    super(`${recordType} ${JSON.stringify(id)} does not exist.`, {
      extensions: { code: ErrorCode.notFound, recordType, id },
    });
  }
}

/** Collects field errors so one answer names every bad field at once. */
export class FieldErrors {
  private readonly fields: Record<string, string> = {};

  add(field: string, message: string): void {
    this.fields[field] ??= message;
  }

  get isEmpty(): boolean {
    return Object.keys(this.fields).length === 0;
  }

  throwIfAny(): void {
    if (!this.isEmpty) throw new InputError(this.fields);
  }
}

/** Refused until `retryAfter` seconds have passed: answered 429 with Retry-After over HTTP. */
export class RateLimitedError extends GraphQLError {
  constructor(message: string, retryAfter: number) {
    super(message, {
      extensions: {
        code: ErrorCode.rateLimited,
        retryAfter,
        http: { status: 429, headers: { 'retry-after': String(retryAfter) } },
      },
    });
  }
}

/** A second delete of a trashed record without `force`. */
export class AlreadyTrashedError extends GraphQLError {
  constructor(recordType: string, id: number) {
    super(`${recordType} ${id} is already in the trash.`, {
      extensions: { code: ErrorCode.alreadyTrashed, recordType, id },
    });
  }
}

/**
 * A list's window reaches further than some series' occurrence rows exist, and adding them takes more than a list
 * may spend: they are added in the background, and the list is answered 503 with Retry-After meanwhile.
 */
export class OccurrencesPendingError extends GraphQLError {
  constructor(public readonly retryAfterSeconds: number) {
    super(
      `The recurring series in this window are still being extended to it; try again in ${retryAfterSeconds} seconds.`,
      {
        extensions: {
          code: ErrorCode.occurrencesPending,
          retryAfter: retryAfterSeconds,
          http: { status: 503, headers: { 'Retry-After': String(retryAfterSeconds) } },
        },
      },
    );
  }
}
