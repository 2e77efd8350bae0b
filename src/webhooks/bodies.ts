import { type ChangeEntry, type ChangePosition, recordsChangedAfter } from '../db/change-log.js';
import type { DbTransaction } from '../db/client.js';

/** The record as REST answers an anonymous reader, or null when it is gone or not public (src/server.ts renders it). */
export type RenderRecord = (recordType: string, recordId: number) => Promise<unknown>;

/** What a delivery says of its record: its state right after the change, or that it changed again before it was read. */
export type Snapshot = { data: unknown } | 'superseded';

/** The fields of a delivery its body repeats. */
interface DeliveryFacts {
  id: string;
  recordType: string;
  recordId: number;
  action: string;
  changedAt: Date;
}

/**
 * The JSON body of a delivery: the change, and the record as an anonymous REST reader saw it right after the change
 * (`data`; null and `deleted` when it was gone or not public then). A change the record had already been changed
 * again after, when it was read, says so (`superseded`, with `data` null) rather than show the later state as its
 * own: the later change's delivery carries that, and follows it.
 */
export function deliveryBody(delivery: DeliveryFacts, snapshot: Snapshot): string {
  const superseded = snapshot === 'superseded';
  const gone = !superseded && (snapshot.data === null || snapshot.data === undefined);
  return JSON.stringify({
    id: delivery.id,
    type: delivery.recordType,
    record_id: delivery.recordId,
    action: gone ? 'deleted' : delivery.action,
    modified_utc: delivery.changedAt.toISOString().slice(0, 19).replace('T', ' '),
    ...(superseded ? { superseded: true } : {}),
    data: superseded || gone ? null : snapshot.data,
  });
}

const recordKey = (entry: Pick<ChangeEntry, 'recordType' | 'recordId'>) => `${entry.recordType} ${entry.recordId}`;

/**
 * What each of `entries` (in log order, all read up to `readTo`) says of its record, read now, as soon as the
 * dispatcher sees the change: the state after the last change of each record, unless the log has a later change
 * of it by the time the state was read (then it may show that one, and is `superseded` too), or why it could not
 * be rendered.
 */
export async function snapshotsOf(
  db: DbTransaction,
  entries: ChangeEntry[],
  readTo: ChangePosition,
  render: RenderRecord,
): Promise<Map<ChangeEntry, Snapshot | Error>> {
  const lastOfRecord = new Map<string, ChangeEntry>();
  for (const entry of entries) lastOfRecord.set(recordKey(entry), entry);
  const rendered = new Map<ChangeEntry, unknown>();
  const failed = new Map<ChangeEntry, Error>();
  for (const entry of lastOfRecord.values()) {
    try {
      rendered.set(entry, await render(entry.recordType, entry.recordId));
    } catch (error) {
      failed.set(entry, error instanceof Error ? error : new Error(String(error)));
    }
  }
  // Read after rendering: a write the rendering saw has its log entry committed with it, so it is found here.
  const changedSince = new Set(
    (await recordsChangedAfter(db, readTo, [...rendered.keys()])).map((record) => recordKey(record)),
  );
  const snapshots = new Map<ChangeEntry, Snapshot | Error>();
  for (const entry of entries) {
    const key = recordKey(entry);
    if (lastOfRecord.get(key) !== entry || changedSince.has(key)) snapshots.set(entry, 'superseded');
    else snapshots.set(entry, failed.get(entry) ?? { data: rendered.get(entry) });
  }
  return snapshots;
}
