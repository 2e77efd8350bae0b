import type { Config } from '../config.js';
import type { Db } from '../db/client.js';
import { createLoaders, type Loaders } from './loaders.js';

/** Who is asking. Anonymous until authentication arrives; the shape is what permissions will read. */
export interface Viewer {
  userId: number | null;
}

/** Everything one request owns. Nothing request-scoped lives at module level. */
export interface Context {
  db: Db;
  config: Config;
  viewer: Viewer;
  loaders: Loaders;
  /** The request's time: every "now" in one request is the same instant. */
  now: Date;
}

export function createContext(db: Db, config: Config, viewer: Viewer = { userId: null }): Context {
  return { db, config, viewer, loaders: createLoaders(db), now: new Date() };
}
