import type { GraphQLFormattedError } from 'graphql';

/** Every error code this REST layer answers with, its HTTP status and message: one declaration each. */
export const REST_ERRORS = {
  rest_no_route: { status: 404, message: 'No route was found matching the URL and request method.' },
  rest_invalid_json: { status: 400, message: 'Invalid JSON body passed.' },
  rest_forbidden: { status: 401, message: 'Sorry, you are not allowed to do that.' },
  // Unknown user and wrong password answer alike, so the answer does not tell which logins exist.
  incorrect_password: { status: 401, message: 'The credentials sent are not valid.' },
  // Too many failed sign-ins from this address or for this login (docs/authentication.md); with Retry-After.
  rest_too_many_requests: { status: 429, message: 'Too many failed sign-in attempts. Try again in %d seconds.' },
  // Too many wrong passwords of protected records from this address (docs/authentication.md).
  rest_too_many_password_attempts: {
    status: 429,
    message: 'Too many wrong passwords from this address. Try again in %d seconds.',
  },
  'rest-event-not-found': { status: 404, message: 'Event with ID %d does not exist.' },
  // The ID is a venue's or an organizer's: events, venues and organizers share one ID space, as WordPress posts do.
  'rest-invalid-event-id': { status: 400, message: 'The specified ID is not a valid event.' },
  'event-no-longer-available': { status: 403, message: 'This event is no longer available' },
  'event-not-accessible': { status: 403, message: 'The requested event is not accessible' },
  'event-password-protected': { status: 403, message: 'The requested event is password protected' },
  'venue-not-accessible': { status: 403, message: 'The requested venue is not accessible' },
  'organizer-not-accessible': { status: 403, message: 'The requested organizer is not accessible' },
  'event-archive-page-not-found': { status: 404, message: 'The requested event archive page does not exist' },
  'venue-archive-page-not-found': { status: 404, message: 'The requested venue archive page does not exist' },
  'organizer-archive-page-not-found': { status: 404, message: 'The requested organizer archive page does not exist' },
  'event-is-in-trash': { status: 410, message: 'The event is already trashed' },
  'venue-is-in-trash': { status: 410, message: 'The venue is already trashed' },
  'organizer-is-in-trash': { status: 410, message: 'The organizer is already trashed' },
  term_exists: { status: 400, message: 'A term with the name provided already exists with this parent.' },
  rest_internal_error: { status: 500, message: 'The request could not be completed.' },
  // The service's limits (docs/limits-and-security.md); WordPress leaves these to PHP and the web server.
  rest_request_too_large: { status: 413, message: 'The request body is larger than the limit of %d bytes.' },
  rest_request_timeout: { status: 503, message: 'The request took longer than %d ms and was stopped.' },
  rest_service_overloaded: { status: 503, message: 'The service is busy; try again shortly.' },
  // One client past its share of a busy process (docs/limits-and-security.md): the rest are served; with Retry-After.
  rest_client_over_share: {
    status: 429,
    message: 'This client is sending more than its share while the service is busy; try again shortly.',
  },
  // CORS_ORIGINS does not list the page's origin (docs/limits-and-security.md, "CORS"): the answer to its preflight.
  rest_cors_origin_not_allowed: { status: 403, message: 'Requests from the origin %s are not allowed.' },
  // A change cursor (GET /changes `since`) that is unknown here or older than the retention: read everything again.
  rest_changes_resync_required: {
    status: 410,
    message: 'The cursor is unknown or expired: read the lists in full again, then follow the changes from data.next.',
  },
  // A window beyond the occurrences of recurring series that exist yet (docs/recurring-events.md); with Retry-After.
  rest_occurrences_pending: {
    status: 503,
    message: 'The recurring series in this window are still being extended to it; try again in %d seconds.',
  },
  rest_body_too_deep: { status: 400, message: 'The request body is nested more than %d levels deep.' },
} as const;

export type RestErrorCode = keyof typeof REST_ERRORS;

/** An error answered as WordPress does: `{code, message, data: {status, …}}`. */
export class RestError extends Error {
  constructor(
    public readonly code: string,
    message: string,
    public readonly status: number,
    public readonly data: Record<string, unknown> = {},
    /** Response headers the error comes with (Retry-After). */
    public readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }

  static of(code: RestErrorCode, data: Record<string, unknown> = {}, ...args: (string | number)[]): RestError {
    const { status, message } = REST_ERRORS[code];
    let text: string = message;
    for (const arg of args) text = text.replace(/%[ds]/, String(arg));
    return new RestError(code, text, (data.status as number | undefined) ?? status, data);
  }

  body() {
    return { code: this.code, message: this.message, data: { status: this.status, ...this.data } };
  }

  withHeaders(headers: Record<string, string>): RestError {
    return new RestError(this.code, this.message, this.status, this.data, { ...this.headers, ...headers });
  }
}

export function missingParams(names: string[]): RestError {
  return new RestError('rest_missing_callback_param', `Missing parameter(s): ${names.join(', ')}`, 400, {
    params: names,
  });
}

/** `rest_invalid_param` naming each offending parameter, as WordPress does. */
export function invalidParams(params: Record<string, string>, details: Record<string, unknown> = {}): RestError {
  return new RestError('rest_invalid_param', `Invalid parameter(s): ${Object.keys(params).join(', ')}`, 400, {
    params,
    details: Object.keys(details).length ? details : [],
  });
}

/** How a route reads GraphQL errors: which REST parameter each input field is, and what a missing record means. */
export interface ErrorMapping {
  /** GraphQL input field (first path segment) → REST parameter name. */
  fields?: Record<string, string>;
  notFound?: () => RestError;
  alreadyTrashed?: () => RestError;
  /** A record withheld from the viewer (`reason`: NOT_ACCESSIBLE, NO_LONGER_AVAILABLE, NOT_ALLOWED). */
  forbidden?: (reason: string) => RestError | undefined;
}

function restParamFor(field: string, mapping: ErrorMapping): string {
  const head = field.split('.')[0]!;
  return mapping.fields?.[head] ?? head;
}

/** Maps the first GraphQL error to its WordPress error; unexpected errors become a 500 without detail. */
export function restErrorFromGraphQL(errors: readonly GraphQLFormattedError[], mapping: ErrorMapping): RestError {
  const error = errors[0]!;
  const code = error.extensions?.code;
  if (code === 'BAD_USER_INPUT' && error.extensions?.fields) {
    const params: Record<string, string> = {};
    const details: Record<string, unknown> = {};
    for (const [field, message] of Object.entries(error.extensions.fields as Record<string, string>)) {
      const param = restParamFor(field, mapping);
      params[param] ??= 'Invalid parameter.';
      details[param] ??= { code: 'rest_invalid_param', message: `${field}: ${message}`, data: null };
    }
    if (error.extensions.termExists !== undefined) {
      return RestError.of('term_exists', { term_id: error.extensions.termExists });
    }
    return invalidParams(params, details);
  }
  if (code === 'NOT_FOUND' && mapping.notFound) return mapping.notFound();
  if (code === 'ALREADY_TRASHED' && mapping.alreadyTrashed) return mapping.alreadyTrashed();
  if (code === 'RESYNC_REQUIRED')
    return RestError.of('rest_changes_resync_required', {
      reason: error.extensions?.reason,
      next: error.extensions?.next,
    });
  if (code === 'OCCURRENCES_PENDING') {
    const retryAfter = Number(error.extensions?.retryAfter);
    return RestError.of('rest_occurrences_pending', { retry_after: retryAfter }, retryAfter).withHeaders({
      'Retry-After': String(retryAfter),
    });
  }
  if (code === 'UNAUTHENTICATED') return RestError.of('rest_forbidden', { status: 401 });
  if (code === 'RATE_LIMITED') {
    const retryAfter = Number(error.extensions?.retryAfter);
    return RestError.of('rest_too_many_password_attempts', {}, retryAfter).withHeaders({
      'Retry-After': String(retryAfter),
    });
  }
  if (code === 'FORBIDDEN') {
    return (
      mapping.forbidden?.(String(error.extensions?.reason ?? 'NOT_ALLOWED')) ??
      RestError.of('rest_forbidden', { status: 403 })
    );
  }
  return RestError.of('rest_internal_error');
}
