import { availableParallelism } from 'node:os';
import { isValidTimeZone } from './time/dates.js';

export type Engine = 'sqlite' | 'postgres';

export interface Config {
  port: number;
  host: string;
  databaseUrl: string;
  engine: Engine;
  /** WORKERS: server processes sharing the port (`auto`: one per core); 1 serves in this process. */
  workers: number;
  /** DATABASE_POOL_SIZE: connections each process keeps to PostgreSQL (default 10). */
  databasePoolSize: number;
  siteUrl: string;
  siteTimezone: string;
  restRoot: string;
  /** CALENDAR_ADMIN_PASSWORD: when set, user `admin` (administrator) signs in with this application password. */
  adminPassword: string | undefined;
}

export class ConfigError extends Error {}

type Env = Record<string, string | undefined>;

function readPort(env: Env): number {
  const raw = env.PORT ?? '4000';
  const port = Number(raw);
  if (!/^\d+$/.test(raw) || port > 65535) throw new ConfigError(`PORT must be a port number (0-65535), got "${raw}"`);
  return port;
}

function readWorkers(env: Env): number {
  const raw = env.WORKERS ?? '1';
  if (raw === 'auto') return availableParallelism();
  if (!/^\d+$/.test(raw) || Number(raw) < 1 || Number(raw) > 256) throw new ConfigError(`WORKERS must be "auto" or a whole number from 1 to 256, got "${raw}"`);
  return Number(raw);
}

function readPoolSize(env: Env): number {
  const raw = env.DATABASE_POOL_SIZE ?? '10';
  if (!/^\d+$/.test(raw) || Number(raw) < 1 || Number(raw) > 1000) throw new ConfigError(`DATABASE_POOL_SIZE must be a whole number from 1 to 1000, got "${raw}"`);
  return Number(raw);
}

function engineOf(url: string): Engine {
  if (url.startsWith('file:')) return 'sqlite';
  if (/^postgres(ql)?:\/\//.test(url)) return 'postgres';
  throw new ConfigError(`DATABASE_URL must start with file: (SQLite) or postgres:// (PostgreSQL), got "${url}"`);
}

function readSiteUrl(env: Env, port: number): string {
  const raw = env.SITE_URL ?? `http://localhost:${port}`;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ConfigError(`SITE_URL must be an absolute http(s) URL, got "${raw}"`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new ConfigError(`SITE_URL must use http or https, got "${raw}"`);
  return raw.replace(/\/+$/, '');
}

function readRestRoot(env: Env): string {
  const raw = env.REST_ROOT ?? 'wp-json';
  const trimmed = raw.replace(/^\/+|\/+$/g, '');
  if (!/^[A-Za-z0-9._-]+(\/[A-Za-z0-9._-]+)*$/.test(trimmed)) throw new ConfigError(`REST_ROOT must be a path such as "wp-json", got "${raw}"`);
  return trimmed;
}

/** Reads the environment into a typed configuration; throws ConfigError with a one-line reason when it is wrong. */
export function loadConfig(env: Env = process.env): Config {
  const port = readPort(env);
  const databaseUrl = env.DATABASE_URL ?? 'file:./data/calendar.db';
  const siteTimezone = env.SITE_TIMEZONE ?? 'UTC';
  if (!isValidTimeZone(siteTimezone)) throw new ConfigError(`SITE_TIMEZONE must be an IANA time zone such as "Europe/Berlin", got "${siteTimezone}"`);
  return {
    port,
    host: env.HOST ?? '0.0.0.0',
    databaseUrl,
    engine: engineOf(databaseUrl),
    databasePoolSize: readPoolSize(env),
    workers: readWorkers(env),
    siteUrl: readSiteUrl(env, port),
    siteTimezone,
    restRoot: readRestRoot(env),
    adminPassword: env.CALENDAR_ADMIN_PASSWORD || undefined,
  };
}
