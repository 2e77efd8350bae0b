import { GraphQLError } from 'graphql';
import type { Plugin } from 'graphql-yoga';

// The parameters of a GraphQL request (query, variables, extensions, operationName) as GraphQL Yoga reads them from a
// URL or a body. Yoga checks their types, but lets a JSON.parse of `variables` or `extensions` given in a URL (GET, or
// a form-encoded POST) throw, which it answers as an unexpected 500.

/** GraphQL Yoga's code for a request whose parameters are malformed. */
export const BAD_REQUEST = 'BAD_REQUEST';

/** The parameters that are JSON text when they come in a URL or a form. */
const JSON_PARAMS = ['variables', 'extensions'] as const;

const badRequest = (message: string) =>
  new GraphQLError(message, { extensions: { code: BAD_REQUEST, http: { status: 400 } } });

const jsonError = (text: string | null): string | undefined => {
  if (!text) return undefined;
  try {
    JSON.parse(text);
    return undefined;
  } catch (error) {
    return (error as Error).message;
  }
};

/** Why the request's JSON parameters cannot be read, naming the one at fault when it is in the URL. */
function invalidJson(request: Request, error: SyntaxError): GraphQLError {
  const { searchParams } = new URL(request.url);
  for (const name of JSON_PARAMS) {
    const reason = jsonError(searchParams.get(name));
    if (reason) return badRequest(`The "${name}" parameter is not valid JSON: ${reason}.`);
  }
  return badRequest(`The "variables" or "extensions" parameter is not valid JSON: ${error.message}.`);
}

/**
 * Answers malformed request parameters with 400 BAD_REQUEST: `variables` or `extensions` that are not JSON, an
 * `operationName` that is not a string.
 */
export function requestParamChecks(): Plugin {
  return {
    onRequestParse({ requestParser, setRequestParser }) {
      if (!requestParser) return;
      setRequestParser(async (request) => {
        try {
          return await requestParser(request);
        } catch (error) {
          throw error instanceof SyntaxError ? invalidJson(request, error) : error;
        }
      });
    },
    onParams({ params }) {
      const name: unknown = params.operationName;
      if (name != null && typeof name !== 'string') {
        throw badRequest(
          `Expected "operationName" param to be a string, but given ${Array.isArray(name) ? 'array' : typeof name}.`,
        );
      }
    },
  };
}
