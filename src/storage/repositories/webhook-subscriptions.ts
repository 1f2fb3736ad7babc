// Which webhook event types some enabled endpoint wants, kept in memory per instance (docs/webhooks.md, "Cost"),
// so that the webhook subscriber asks the database only for an audit event some endpoint may want. Every change
// to `webhook_endpoints` announces itself (a statement trigger, migration 0810) on the notice channel
// (notifications.ts); a notice, or the listener being (re)established, makes the set unknown until it is read
// again. While the set is unknown, the listener is down or its last proof of life is older than FRESH_MS,
// `mayWant` answers true: the subscriber then queries, as without the cache. A write made by this process is
// announced before its commit returns (pool connections listen too), so it is seen by the next event; another
// instance's write within the freshness bound, as any concurrent commit.
import { performance } from 'node:perf_hooks';
import type { Db } from '../driver/database.js';
import type { NotificationSource } from '../driver/notifications.js';

export const WEBHOOK_ENDPOINTS_CHANNEL = 'gatehouse_webhook_endpoints';
/** How old the listener's last proof of life may be for the set to be trusted. */
const FRESH_MS = 2_000;

export interface WebhookSubscriptions {
  /**
   * False only when the set is current and no enabled endpoint wants `eventType`; always true when the asking
   * transaction changed an endpoint (`changedHere`: its change is announced only at commit, but its events see it).
   */
  mayWant(eventType: string, changedHere?: boolean): boolean;
  close(): void;
}

// Transactions that changed an endpoint (the repository notes it), keyed by the transaction object: gone with it.
const changing = new WeakSet<Db>();

/** Called by the endpoints repository before each change it writes. */
export function noteEndpointsChange(db: Db): void {
  if (db.isTransaction) changing.add(db);
}

/** Whether the transaction `db` changed an endpoint (asked through its store: `store.changedWebhookEndpoints`). */
export const changedEndpointsIn = (db: Db): boolean => changing.has(db);

/** Without notifications (none configured) every event is checked against the database. */
export function webhookSubscriptions(db: Db, notifications: NotificationSource | undefined): WebhookSubscriptions {
  if (!notifications) return { mayWant: () => true, close() {} };
  // `all`: an enabled endpoint with no event types (it wants every event).
  let wanted: Set<string> | 'all' | undefined;
  let generation = 0;
  let listening = false;
  let aliveAsOf = Number.NEGATIVE_INFINITY;

  async function load(): Promise<void> {
    const started = generation;
    try {
      const rows = await db.selectFrom('webhook_endpoints').select('event_types').where('enabled', '=', true).execute();
      const set = rows.some((r) => r.event_types.length === 0) ? 'all' : new Set(rows.flatMap((r) => r.event_types));
      // A notice that arrived meanwhile may describe a change this read did not see: it reloads itself.
      if (generation === started) wanted = set;
    } catch {
      // Stays unknown: every event is checked against the database until the next notice or listener start.
    }
  }
  function invalidate(): void {
    generation += 1;
    wanted = undefined;
    void load();
  }

  const unsubscribe = notifications.subscribe(WEBHOOK_ENDPOINTS_CHANNEL, {
    notice: invalidate,
    listening() {
      listening = true;
      invalidate();
    },
    alive(asOfMs) {
      aliveAsOf = Math.max(aliveAsOf, asOfMs);
    },
    lost() {
      listening = false;
      aliveAsOf = Number.NEGATIVE_INFINITY;
      generation += 1;
      wanted = undefined;
    },
  });

  return {
    mayWant(eventType, changedHere = false) {
      if (changedHere) return true;
      if (!listening || wanted === undefined || performance.now() - aliveAsOf > FRESH_MS) return true;
      return wanted === 'all' || wanted.has(eventType);
    },
    close: unsubscribe,
  };
}
