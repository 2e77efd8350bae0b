/** `backup <file>` and `restore <file>`: copies of the embedded SQLite database (src/db/backup.ts). */
import type { Config } from '../config.js';
import { BackupError, backupSqlite, restoreSqlite } from '../db/backup.js';
import { CliError, parseCommandLine } from './arguments.js';

export const BACKUP_USAGE: Array<[string, string]> = [
  ['backup <file>', 'a consistent copy of the SQLite database in <file>, taken while the server serves and writes'],
  ['restore <file>', 'put a backup back as the database (with the server stopped); it migrates when it starts'],
];

const POSTGRES_RECIPE =
  'PostgreSQL is backed up with its own tools: pg_dump --format=custom, and pg_restore to bring it back (docs/operations.md#backups)';

export async function runBackupCommand(config: Config, command: 'backup' | 'restore', args: string[]): Promise<void> {
  const usage = BACKUP_USAGE.find(([line]) => line.startsWith(command))![0];
  const { positionals } = parseCommandLine(args, {}, usage);
  if (positionals.length !== 1) throw new CliError(`${command} takes one file; usage: ${usage}`);
  if (config.engine !== 'sqlite') throw new CliError(POSTGRES_RECIPE);
  const file = positionals[0]!;
  try {
    if (command === 'backup') {
      const { bytes, migrations } = backupSqlite(config, file);
      console.log(`Backed up the database to ${file} (${bytes} bytes, ${migrations} migrations applied).`);
      return;
    }
    const { target, pendingMigrations } = await restoreSqlite(config, file);
    const pending = pendingMigrations.length
      ? `; the server applies ${pendingMigrations.length} newer migrations when it starts`
      : '';
    console.log(`Restored ${file} into ${target}${pending}.`);
  } catch (error) {
    if (error instanceof BackupError) throw new CliError(error.message);
    throw error;
  }
}
