import DataLoader from 'dataloader';
import type { Db } from '../db/client.js';

/** Per-request batch loaders: one SQL query per kind of lookup, whatever the page size. */
export interface Loaders {
  /** Number of published events assigned to a term (WordPress's term `count`). */
  termEventCount: DataLoader<number, number>;
}

export function createLoaders(db: Db): Loaders {
  return {
    termEventCount: new DataLoader(async (termIds) => {
      const rows = await db.eventTerm.groupBy({
        by: ['termId'],
        where: { termId: { in: [...termIds] }, event: { status: 'publish' } },
        _count: { _all: true },
      });
      const counts = new Map(rows.map((row) => [row.termId, row._count._all]));
      return termIds.map((id) => counts.get(id) ?? 0);
    }),
  };
}
