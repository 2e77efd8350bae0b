// Data steps: changes of stored rows that SQL cannot make (they need the service's own reading of wall clocks), run
// once per database after the SQL migrations by the migration runner (src/db/migrate.ts). A step is recorded as done
// in a Setting row `data_step:<name>` (not in `_prisma_migrations`, which `prisma migrate deploy` checks against the
// migration folders), and must be safe to run again: a step cut short (a crash) runs again from the start at the next
// start. A database with no events has nothing to repair: its steps are recorded at once, without a client.
import type { Config } from '../config.js';
import type { Logger } from '../logging/logger.js';
import { createDb, type Db } from './client.js';
import { repairClockRule } from './clock-repair.js';

export interface DataStep {
  name: string;
  /** Runs the step; answers what it did, for the log and the Setting row. */
  run(db: Db, logger: Logger | undefined): Promise<object>;
}

export const DATA_STEPS: DataStep[] = [
  // Rows written before the clock rule (RFC 5545 §3.3.5) for wall clocks the zone skips or repeats.
  { name: 'clock_rule_repair', run: repairClockRule },
];

/** The Setting row that records a data step as done. */
export const dataStepSetting = (name: string) => `data_step:${name}`;

/** Runs the named steps, each recorded as done when it finished; answers their names. */
export async function runDataSteps(config: Config, names: string[], logger: Logger | undefined): Promise<string[]> {
  const steps = DATA_STEPS.filter((step) => names.includes(step.name));
  if (!steps.length) return [];
  const db = createDb({ ...config, databasePoolSize: 1 });
  try {
    for (const step of steps) {
      const started = performance.now();
      const outcome = await step.run(db, logger);
      const value = JSON.stringify({ finishedAt: new Date().toISOString(), ...outcome });
      await db.setting.upsert({
        where: { name: dataStepSetting(step.name) },
        create: { name: dataStepSetting(step.name), value },
        update: {},
      });
      logger?.info(
        { dataStep: step.name, ms: Math.round(performance.now() - started), ...outcome },
        `data step ${step.name} done`,
      );
    }
  } finally {
    await db.$disconnect();
  }
  return steps.map((step) => step.name);
}
