import { randomUUID } from 'node:crypto';
import type { Db } from '../db/client.js';

/**
 * A named lease in the database (the `Lease` table) that one process holds at a time, on either engine: the holder
 * renews it before it expires; once expired, anyone takes it over. Each step is one atomic statement, so two
 * processes never both succeed. Expiry is judged by the clocks of the processes, which are assumed to agree to well
 * within the lease's length (they share a database).
 */
async function holdLease(db: Db, name: string, owner: string, leaseMs: number): Promise<boolean> {
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
async function releaseLease(db: Db, name: string, owner: string): Promise<void> {
  await db.lease.deleteMany({ where: { name, owner } });
}

/**
 * This process's hold on one named lease, for a background worker that runs in one process at a time (the webhook
 * dispatcher, the CDN purger): renewed, or taken once expired, at most once per third of its length (and per second).
 */
export class LeaseHolder {
  private readonly owner = `${process.pid}-${randomUUID()}`;
  private readonly renewEveryMs: number;
  private lastRenewal = Number.NEGATIVE_INFINITY;
  private holding = false;

  constructor(
    private readonly db: Db,
    private readonly name: string,
    private readonly leaseMs: number,
  ) {
    this.renewEveryMs = Math.min(leaseMs / 3, 1000);
  }

  /** Whether the lease is to be renewed (or tried for) now: a worker with nothing else to do wakes for it. */
  get renewalDue(): boolean {
    return Date.now() - this.lastRenewal >= this.renewEveryMs;
  }

  /**
   * Renews the lease, or tries to take it, when a renewal is due; whether this process holds it. `takenOver` runs when
   * it was just taken: another process worked meanwhile, and what this one remembers of the work is out of date.
   */
  async renew(takenOver: () => void): Promise<boolean> {
    if (!this.renewalDue) return this.holding;
    const asked = Date.now();
    const held = await holdLease(this.db, this.name, this.owner, this.leaseMs);
    if (held && !this.holding) takenOver();
    this.holding = held;
    this.lastRenewal = asked;
    return held;
  }

  /** Gives the lease up if held (a clean shutdown); a failure only means another process waits for it to expire. */
  async release(): Promise<void> {
    if (this.holding) await releaseLease(this.db, this.name, this.owner).catch(() => undefined);
    this.holding = false;
  }
}
