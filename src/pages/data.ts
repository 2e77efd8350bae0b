import type { GraphQLError } from 'graphql';
import type { TypedDocumentNode } from '@graphql-typed-document-node/core';
import type { Context } from '../graphql/builder.js';
import { executeInProcess } from '../read/request-contexts.js';
import { unexpectedCause } from '../logging/graphql-errors.js';

/** A page that cannot be shown: answered as an HTML page with this status. */
export class PageRefusal extends Error {
  constructor(
    readonly status: number,
    readonly heading: string,
    message: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }

  static notFound(): PageRefusal {
    return new PageRefusal(404, 'Page not found', 'There is no page here, or it is not public.');
  }
}

/** Expected refusals of a read: the record is unknown, or withheld from this viewer; a page answers both as not found. */
const WITHHELD = new Set(['NOT_FOUND', 'FORBIDDEN', 'UNAUTHENTICATED', 'BAD_USER_INPUT']);

/**
 * Runs one of the pages' GraphQL documents in process, as the REST layer does (the pages never touch the database
 * themselves): withheld or unknown records are a PageRefusal (404); anything else is unexpected and thrown (its
 * cause, for the request's log).
 */
export async function runPageQuery<Result, Variables>(
  document: TypedDocumentNode<Result, Variables>,
  variables: Variables,
  context: Context,
): Promise<Result> {
  const result = await executeInProcess(document, variables, context);
  if (!result.errors?.length) return result.data as Result;
  const unexpected = result.errors.find(
    (error: GraphQLError) => unexpectedCause(error) !== undefined || !WITHHELD.has(String(error.extensions?.code)),
  );
  if (!unexpected) throw PageRefusal.notFound();
  throw unexpectedCause(unexpected) ?? unexpected;
}

/** A single read's record, shown unless unknown or trashed (a trashed record is gone even for those who may restore it, as on the REST API). */
export function assertPublic<T extends { status: string }>(record: T | null | undefined): asserts record is T {
  if (!record || record.status === 'TRASH') throw PageRefusal.notFound();
}
