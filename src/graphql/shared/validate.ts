import type { FieldErrors } from '../errors.js';

export function isHttpUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname !== '';
  } catch {
    return false;
  }
}

export function checkUrl(errors: FieldErrors, field: string, value: string | null | undefined): void {
  if (value && !isHttpUrl(value)) errors.add(field, 'must be an http(s) URL');
}

export function checkEmail(errors: FieldErrors, field: string, value: string | null | undefined): void {
  if (value && !/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(value)) errors.add(field, 'must be an e-mail address');
}

export function checkNonEmpty(errors: FieldErrors, field: string, value: string | null | undefined): void {
  if (value !== undefined && value !== null && value.trim() === '') errors.add(field, 'must not be empty');
}

export function checkLatitude(errors: FieldErrors, field: string, value: number | null | undefined): void {
  if (value !== undefined && value !== null && !(value >= -90 && value <= 90)) errors.add(field, 'must be between -90 and 90');
}

export function checkLongitude(errors: FieldErrors, field: string, value: number | null | undefined): void {
  if (value !== undefined && value !== null && !(value >= -180 && value <= 180)) errors.add(field, 'must be between -180 and 180');
}

/** Drops keys whose value is undefined, so Prisma leaves those columns as they are. */
export function definedOnly<T extends Record<string, unknown>>(data: T): Partial<T> {
  return Object.fromEntries(Object.entries(data).filter(([, v]) => v !== undefined)) as Partial<T>;
}

/** Turns null values into undefined, for input fields whose column cannot be null (null then leaves it as it is). */
export function withoutNulls<T extends Record<string, unknown>>(data: T): { [K in keyof T]: Exclude<T[K], null> } {
  return Object.fromEntries(Object.entries(data).map(([key, value]) => [key, value ?? undefined])) as { [K in keyof T]: Exclude<T[K], null> };
}
