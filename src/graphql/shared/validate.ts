import type { FieldErrors } from '../errors.js';

/** Characters no stored URL or e-mail address carries: white space, controls, and those that end an HTML attribute or tag. */
const UNSAFE_IN_ADDRESS = /[\s\p{Cc}"'<>`\\]/u;

/** A host name of letters, digits and hyphens (`example.org`, `localhost`, IDN as punycode), or an IP address. */
const HOST_NAME = /^(?!-)[a-z0-9-]{1,63}(?<!-)(\.(?!-)[a-z0-9-]{1,63}(?<!-))*$/;
const IP_ADDRESS = /^(\d{1,3}(\.\d{1,3}){3}|\[[0-9a-f:.]+\])$/;

/**
 * An absolute http(s) URL as written out (`http://` or `https://` and a host), holding nothing that could end the
 * attribute or element it is put in. WHATWG URL parsing alone accepts `http:example.org` and hosts like `x"y`.
 */
export function isHttpUrl(value: string): boolean {
  if (UNSAFE_IN_ADDRESS.test(value) || !/^https?:\/\/[^/]/i.test(value)) return false;
  try {
    const { hostname } = new URL(value);
    return HOST_NAME.test(hostname) || IP_ADDRESS.test(hostname);
  } catch {
    return false;
  }
}

export function checkUrl(errors: FieldErrors, field: string, value: string | null | undefined): void {
  if (value && !isHttpUrl(value)) errors.add(field, 'must be an http(s) URL');
}

/** WordPress's is_email: the local part's allowed characters (no quotes, no `<` `>`), and a domain of two labels or more. */
const EMAIL = /^[a-z0-9!#$%&'*+/=?^_`{|}~.-]+@(?!-)[a-z0-9-]{1,63}(?<!-)(\.(?!-)[a-z0-9-]{1,63}(?<!-))+$/i;

export function checkEmail(errors: FieldErrors, field: string, value: string | null | undefined): void {
  if (value && (value.length > 254 || !EMAIL.test(value))) errors.add(field, 'must be an e-mail address');
}

export function checkNonEmpty(errors: FieldErrors, field: string, value: string | null | undefined): void {
  if (value !== undefined && value !== null && value.trim() === '') errors.add(field, 'must not be empty');
}

export function checkLatitude(errors: FieldErrors, field: string, value: number | null | undefined): void {
  if (value !== undefined && value !== null && !(value >= -90 && value <= 90))
    errors.add(field, 'must be between -90 and 90');
}

export function checkLongitude(errors: FieldErrors, field: string, value: number | null | undefined): void {
  if (value !== undefined && value !== null && !(value >= -180 && value <= 180))
    errors.add(field, 'must be between -180 and 180');
}

/** Drops keys whose value is undefined, so Prisma leaves those columns as they are. */
export function definedOnly<T extends Record<string, unknown>>(data: T): Partial<T> {
  return Object.fromEntries(Object.entries(data).filter(([, v]) => v !== undefined)) as Partial<T>;
}

/** Turns null values into undefined, for input fields whose column cannot be null (null then leaves it as it is). */
export function withoutNulls<T extends Record<string, unknown>>(data: T): { [K in keyof T]: Exclude<T[K], null> } {
  return Object.fromEntries(Object.entries(data).map(([key, value]) => [key, value ?? undefined])) as {
    [K in keyof T]: Exclude<T[K], null>;
  };
}
