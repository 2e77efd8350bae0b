import type { Db } from '../db/client.js';

/**
 * A named lease in the database (the `Lease` table) that one process holds at a time, on either engine: the holder
 * renews it before it expires; once expired, anyone takes it over. Each step is one atomic statement, so two
 * processes never both succeed. Expiry is judged by the clocks of the processes, which are assumed to agree to well
 * within the lease's length (they share a database).
 */
export async function holdLease(db: Db, name: string, owner: string, leaseMs: number): Promise<boolean> {
  const now = new Date();
  const expiresAt = new Date(now.getTime() + leaseMs);
  const { count } = await db.lease.updateMany({
    where: { name, OR: [{ owner }, { expiresAt: { lt: now } }] },
    data: { owner, expiresAt },
  });
  if (count > 0) return true;
  try {
    await db.lease.create({ data: { name, owner, expiresAt } });
    return true;
  } catch (error) {
    if ((error as { code?: string }).code === 'P2002') return false; // held by another
    throw error;
  }
}

/** Gives the lease up at once (a clean shutdown), so that another process need not wait for it to expire. */
export async function releaseLease(db: Db, name: string, owner: string): Promise<void> {
  await db.lease.deleteMany({ where: { name, owner } });
}
