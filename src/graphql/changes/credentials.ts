import type { Db } from '../../db/client.js';
import type { Role } from '../../db/generated/prisma/enums.js';

/** Who a signed-in stream was opened as: the credential it signed in with, and its user's role then. */
export interface StreamViewer {
  credentialId: number;
  role: Role;
}

/** What became of a stream's credential since it signed in. */
export type CredentialVerdict = 'valid' | 'revoked' | 'role-changed';

/** How stale a signed-in stream's credential may be when no change comes (a batch of changes checks it anyway). */
export const CREDENTIAL_RECHECK_MS = 5000;

/** What one check found: the credentials it read, those still valid with the role their streams had, those still valid. */
interface Check {
  ids: ReadonlySet<number>;
  unchanged: ReadonlySet<string>;
  valid: ReadonlySet<number>;
}

const keyOf = (viewer: StreamViewer) => `${viewer.credentialId} ${viewer.role}`;

const verdictOf = (viewer: StreamViewer, check: Check): CredentialVerdict =>
  check.unchanged.has(keyOf(viewer)) ? 'valid' : check.valid.has(viewer.credentialId) ? 'role-changed' : 'revoked';

/**
 * The credentials of this process's signed-in streams, checked again so that a stream never outlives them: once per
 * batch of changes, after the batch was read and before any of it is told, for every stream at once (one statement,
 * shared by the batch's identity, whatever the number of streams), so that a stream is never told of a change
 * committed after its credential was revoked or its user's role changed; and every CREDENTIAL_RECHECK_MS while no
 * batch came, so that such a stream ends even when nothing changes. Credentials are not in the change log, nor do they
 * move the data version: they are read here.
 */
export class StreamCredentials<Holder> {
  private readonly held = new Map<Holder, StreamViewer>();
  private readonly byBatch = new WeakMap<object, Promise<Check>>();
  private lastCheckAt = 0;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly db: Db,
    /** A holder whose credential no longer holds, found by the periodic check. */
    private readonly onVerdict: (holder: Holder, verdict: Exclude<CredentialVerdict, 'valid'>) => void,
    private readonly onError: (error: unknown) => void,
  ) {}

  hold(holder: Holder, viewer: StreamViewer): void {
    this.held.set(holder, viewer);
    this.timer ??= setInterval(() => void this.recheck(), CREDENTIAL_RECHECK_MS / 5).unref();
  }

  release(holder: Holder): void {
    this.held.delete(holder);
    if (this.held.size === 0) {
      clearInterval(this.timer);
      this.timer = undefined;
    }
  }

  /** The verdict on `holder`'s credential as of a check made after `batch` was read. */
  async verdictAfter(batch: object, holder: Holder): Promise<CredentialVerdict> {
    const viewer = this.held.get(holder);
    if (!viewer) return 'valid';
    let check = this.byBatch.get(batch);
    if (!check) this.byBatch.set(batch, (check = this.check()));
    let result = await check;
    // Held after the batch's check was made: a check of its own.
    if (!result.ids.has(viewer.credentialId)) result = await this.check();
    return verdictOf(viewer, result);
  }

  /**
   * One statement while every credential holds: the credentials still valid with the role their streams had (a filter
   * on the user's row, not a read of it, which Prisma would make a second statement). When some do not, one more tells
   * a revoked credential from a changed role.
   */
  private async check(): Promise<Check> {
    this.lastCheckAt = Date.now();
    const viewers = [...this.held.values()];
    const ids = new Set(viewers.map((viewer) => viewer.credentialId));
    const byRole = new Map<Role, Set<number>>();
    for (const viewer of viewers)
      byRole.set(viewer.role, (byRole.get(viewer.role) ?? new Set()).add(viewer.credentialId));
    const held = await this.db.credential.findMany({
      where: {
        revokedAt: null,
        OR: [...byRole].map(([role, roleIds]) => ({ id: { in: [...roleIds] }, user: { role } })),
      },
      select: { id: true },
    });
    const unchanged = new Set<string>();
    const valid = new Set(held.map((row) => row.id));
    for (const { id } of held) {
      const roles = [...byRole].filter(([, roleIds]) => roleIds.has(id)).map(([role]) => role);
      // Held with one role, it still has it; held with two (its role changed between two subscriptions), see below.
      if (roles.length === 1) unchanged.add(keyOf({ credentialId: id, role: roles[0]! }));
    }
    const unsure = new Set(
      viewers.filter((viewer) => !unchanged.has(keyOf(viewer))).map((viewer) => viewer.credentialId),
    );
    if (unsure.size) {
      const rows = await this.db.credential.findMany({
        where: { id: { in: [...unsure] }, revokedAt: null },
        select: { id: true, user: { select: { role: true } } },
      });
      for (const row of rows) {
        valid.add(row.id);
        unchanged.add(keyOf({ credentialId: row.id, role: row.user.role }));
      }
    }
    return { ids, unchanged, valid };
  }

  private async recheck() {
    if (this.held.size === 0 || Date.now() - this.lastCheckAt < CREDENTIAL_RECHECK_MS) return;
    try {
      const result = await this.check();
      for (const [holder, viewer] of [...this.held]) {
        const verdict = verdictOf(viewer, result);
        if (verdict !== 'valid' && result.ids.has(viewer.credentialId)) this.onVerdict(holder, verdict);
      }
    } catch (error) {
      this.onError(error);
    }
  }
}
