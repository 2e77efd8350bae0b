// Web origins (`scheme://host[:port]`): reading the Origin header, and the CORS_ORIGINS setting that lists them.

/** CORS_ORIGINS: `any`, or the exact origins (`scheme://host[:port]`) whose pages may read the APIs' answers. */
export type CorsOrigins = 'any' | readonly string[];

/** `scheme://host[:port]` as a browser serializes an origin: no path, query, user information or trailing slash. */
const ORIGIN = /^[a-z][a-z0-9+.-]*:\/\/(?:\[[0-9a-f:.]+\]|[a-z0-9-]+(?:\.[a-z0-9-]+)*)(?::(\d{1,5}))?$/i;

/** The Origin header's value when it is a well-formed origin (`null` and anything else are not). */
export function wellFormedOrigin(value: string | null): string | null {
  if (value === null || value.length > 512) return null;
  const match = ORIGIN.exec(value);
  if (!match || (match[1] !== undefined && Number(match[1]) > 65535)) return null;
  return value;
}

/** Reads CORS_ORIGINS: `any` (the default) or a comma-separated list of origins; `invalid` names an entry that is not one. */
export function parseCorsOrigins(raw: string): CorsOrigins | { invalid: string } {
  if (raw.trim() === 'any') return 'any';
  const origins = raw
    .split(',')
    .map((origin) => origin.trim())
    .filter(Boolean);
  const invalid = origins.find((origin) => wellFormedOrigin(origin) === null);
  return invalid === undefined && origins.length ? origins : { invalid: invalid ?? raw };
}
