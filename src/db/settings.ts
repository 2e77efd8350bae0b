import type { DbTransaction } from './client.js';

/** Settings never change once stored, so each database client reads each one once. */
const remembered = new WeakMap<object, Map<string, Promise<string>>>();

async function readOrCreate(db: DbTransaction, name: string, initial: () => Promise<string>): Promise<string> {
  const stored = await db.setting.findUnique({ where: { name } });
  if (stored) return stored.value;
  try {
    await db.setting.create({ data: { name, value: await initial() } });
  } catch (error) {
    if ((error as { code?: string }).code !== 'P2002') throw error; // another process stored one first
  }
  return (await db.setting.findUniqueOrThrow({ where: { name } })).value;
}

/**
 * A value generated once per database by the first process that needs it (`initial`) and kept in a `Setting` row,
 * so every process on the database agrees without configuration. The first stored value wins and never changes.
 */
export function permanentSetting(db: DbTransaction, name: string, initial: () => Promise<string>): Promise<string> {
  let settings = remembered.get(db);
  if (!settings) remembered.set(db, (settings = new Map()));
  let value = settings.get(name);
  if (!value) {
    value = readOrCreate(db, name, initial);
    settings.set(name, value);
    value.catch(() => settings.delete(name));
  }
  return value;
}
