import type { ResponseCache } from './cache/response-cache.js';
import { type Db, poolUse } from './db/client.js';
import type { LiveChanges } from './graphql/changes/live.js';
import type { ServiceMetrics } from './metrics/metrics.js';
import type { WebhookDispatcher } from './webhooks/dispatcher.js';

/** The parts of a server process whose state the metrics read at each scrape. */
export interface MeasuredParts {
  /** The requests' client: its pool's use (PostgreSQL). */
  db: Db;
  /** The background work's client: the scrape's own reads (change log, webhook queue) go through it. */
  helperDb: Db;
  responseCache: ResponseCache;
  changes: LiveChanges;
  dispatcher: WebhookDispatcher;
}

const QUEUED = ['pending', 'waiting'];

/** Registers what a scrape reads of the process's parts (what requests do is counted as they are answered). */
export function measureParts(metrics: ServiceMetrics, parts: MeasuredParts): void {
  measureResponseCache(metrics, parts.responseCache);
  measureWebhooks(metrics, parts.helperDb, parts.dispatcher);
  metrics.gauge(
    'calendar_subscription_streams',
    'Open `changed` subscription streams (Server-Sent Events)',
    () => parts.changes.openStreams,
  );
  metrics.gauge('calendar_change_log_entries', 'Entries in the change log (kept CHANGES_RETENTION_DAYS)', () =>
    parts.helperDb.change.count(),
  );
  if (poolUse(parts.db))
    metrics.gauge(
      'calendar_db_pool_connections',
      "The requests' PostgreSQL connections: busy, idle, and requests waiting for one",
      () => {
        const { total, idle, waiting } = poolUse(parts.db)!;
        return [
          { labels: { state: 'busy' }, value: total - idle },
          { labels: { state: 'idle' }, value: idle },
          { labels: { state: 'waiting' }, value: waiting },
        ];
      },
      ['state'],
    );
}

function measureResponseCache(metrics: ServiceMetrics, cache: ResponseCache): void {
  metrics.counter(
    'calendar_response_cache_hits_total',
    'Requests answered from the response cache',
    () => cache.stats().hits,
  );
  metrics.counter(
    'calendar_response_cache_misses_total',
    'Lookups in the response cache that found no current answer (the answer was computed)',
    () => cache.stats().misses,
  );
  metrics.counter(
    'calendar_response_cache_evictions_total',
    'Answers dropped from the response cache, for room (reason="size") or out of date (reason="stale")',
    () => {
      const { evictions, stale } = cache.stats();
      return [
        { labels: { reason: 'size' }, value: evictions },
        { labels: { reason: 'stale' }, value: stale },
      ];
    },
    ['reason'],
  );
  metrics.gauge(
    'calendar_response_cache_bytes',
    'Bytes the response cache holds (RESPONSE_CACHE_MB)',
    () => cache.stats().bytes,
  );
  metrics.gauge('calendar_response_cache_entries', 'Answers the response cache holds', () => cache.stats().entries);
}

function measureWebhooks(metrics: ServiceMetrics, db: Db, dispatcher: WebhookDispatcher): void {
  metrics.gauge(
    'calendar_webhook_deliveries_queued',
    'Deliveries not yet made, by status: pending (due, or retried later) and waiting (behind an earlier one of its record)',
    async () => {
      const groups = await db.webhookDelivery.groupBy({
        by: ['status'],
        where: { status: { in: QUEUED } },
        _count: { _all: true },
      });
      return QUEUED.map((status) => ({
        labels: { status },
        value: groups.find((group) => group.status === status)?._count._all ?? 0,
      }));
    },
    ['status'],
  );
  metrics.gauge(
    'calendar_webhook_oldest_queued_delivery_age_seconds',
    'How long the oldest delivery not yet made has been queued (0 when none is)',
    async () => {
      const { _min } = await db.webhookDelivery.aggregate({
        where: { status: { in: QUEUED } },
        _min: { createdAt: true },
      });
      return _min.createdAt ? Math.max(0, (Date.now() - _min.createdAt.getTime()) / 1000) : 0;
    },
  );
  metrics.counter(
    'calendar_webhook_attempts_total',
    "This process's delivery attempts, by outcome: delivered, failed (retried later), gave_up (failed past WEBHOOK_RETRY_FOR_MS)",
    () => {
      const { delivered, failed, gaveUp } = dispatcher.attempts;
      return [
        { labels: { outcome: 'delivered' }, value: delivered },
        { labels: { outcome: 'failed' }, value: failed },
        { labels: { outcome: 'gave_up' }, value: gaveUp },
      ];
    },
    ['outcome'],
  );
}
