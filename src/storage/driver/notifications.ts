// PostgreSQL LISTEN/NOTIFY as a per-database notice source (docs/revocation-feed.md). A subscriber learns
// three things: a notice, that the listener is (again) in place — anything before may have been missed, so
// it reloads — and how fresh its view is: `alive(asOf)` means every notice committed before the monotonic
// time `asOf` has been delivered. Losing the connection says so at once.
//
// On a PostgreSQL server a dedicated client listens and reconnects with back-off; a `select 1` heartbeat
// proves it alive, since the server delivers pending notifications before answering (a half-open socket
// then shows as a view growing stale). Pool connections listen too: a session receives its own
// notifications before its COMMIT is answered, so a write made by this process is seen by the time the
// write returns — without the writers knowing about any subscriber.
// PGlite is one session in this process: its notifications arrive during the writing query itself.
import { performance } from 'node:perf_hooks';
import pg from 'pg';

export interface NoticeEvents {
  notice(payload: string): void;
  listening(): void;
  alive(asOfMs: number): void;
  lost(): void;
}

export interface NotificationSource {
  subscribe(channel: string, events: NoticeEvents): () => void;
  close(): Promise<void>;
}

export interface ListenerTiming {
  heartbeatMs: number;
  /** A heartbeat unanswered this long ends the connection (it is then re-opened). */
  stalledMs: number;
  reconnectMs: { first: number; max: number };
}

const DEFAULT_TIMING: ListenerTiming = { heartbeatMs: 300, stalledMs: 5_000, reconnectMs: { first: 100, max: 2_000 } };

/** The listener's application_name, so an operator can tell it in pg_stat_activity. */
export const LISTENER_NAME = 'gatehouse-listener';

const quoteIdent = (name: string) => `"${name.replace(/"/g, '""')}"`;

type Subscribers = Map<string, Set<NoticeEvents>>;
const dispatch = (subscribers: Subscribers, channel: string, payload: string | undefined) => {
  for (const events of subscribers.get(channel) ?? []) events.notice(payload ?? '');
};

/**
 * `channels` are fixed when the database is opened, so every pool connection can LISTEN as it connects.
 * `attach` is given each new pool connection.
 */
export function postgresNotifications(url: string, channels: readonly string[], timing: ListenerTiming = DEFAULT_TIMING) {
  const subscribers: Subscribers = new Map();
  let client: pg.Client | undefined;
  let listening = false;
  let closed = false;
  let retryMs = timing.reconnectMs.first;
  let reconnectTimer: NodeJS.Timeout | undefined;
  let heartbeat: NodeJS.Timeout | undefined;
  let pingSentAt: number | undefined;

  const each = (fn: (events: NoticeEvents) => void) => {
    for (const set of subscribers.values()) for (const events of set) fn(events);
  };

  function drop(target: pg.Client) {
    if (client !== target) return;
    client = undefined;
    clearInterval(heartbeat);
    pingSentAt = undefined;
    if (listening) each((events) => events.lost());
    listening = false;
    target.end().catch(() => {});
    if (closed) return;
    reconnectTimer = setTimeout(connect, retryMs);
    reconnectTimer.unref();
    retryMs = Math.min(retryMs * 2, timing.reconnectMs.max);
  }

  function ping(target: pg.Client) {
    if (pingSentAt !== undefined) {
      if (performance.now() - pingSentAt > timing.stalledMs) drop(target);
      return;
    }
    const sentAt = (pingSentAt = performance.now());
    target.query('select 1').then(
      () => {
        if (client !== target) return;
        pingSentAt = undefined;
        each((events) => events.alive(sentAt));
      },
      () => drop(target),
    );
  }

  async function connect() {
    if (closed || client) return;
    const target = new pg.Client({ connectionString: url, connectionTimeoutMillis: 5_000, application_name: LISTENER_NAME });
    client = target;
    target.on('error', () => drop(target));
    target.on('end', () => drop(target));
    target.on('notification', (message) => dispatch(subscribers, message.channel, message.payload));
    try {
      await target.connect();
      const since = performance.now();
      for (const channel of channels) await target.query(`listen ${quoteIdent(channel)}`);
      if (client !== target) return;
      listening = true;
      retryMs = timing.reconnectMs.first;
      each((events) => events.listening());
      each((events) => events.alive(since));
      heartbeat = setInterval(() => ping(target), timing.heartbeatMs);
      heartbeat.unref();
    } catch {
      drop(target);
    }
  }

  return {
    /** A new pool connection listens too, for this process's own writes (see above). */
    attach(poolClient: pg.PoolClient) {
      poolClient.on('notification', (message) => dispatch(subscribers, message.channel, message.payload));
      for (const channel of channels) poolClient.query(`listen ${quoteIdent(channel)}`).catch(() => {});
    },
    subscribe(channel: string, events: NoticeEvents) {
      if (!channels.includes(channel)) throw new Error(`channel ${channel} is not listened to`);
      const set = subscribers.get(channel) ?? new Set();
      subscribers.set(channel, set.add(events));
      // Already listening: the next heartbeat proves this subscriber's view fresh.
      if (listening) events.listening();
      void connect();
      return () => {
        set.delete(events);
      };
    },
    async close() {
      closed = true;
      clearTimeout(reconnectTimer);
      clearInterval(heartbeat);
      const target = client;
      client = undefined;
      if (listening) each((events) => events.lost());
      listening = false;
      await target?.end().catch(() => {});
    },
  } satisfies NotificationSource & { attach(client: pg.PoolClient): void };
}

/** The subset of PGlite this needs. */
export interface PGliteListen {
  listen(channel: string, callback: (payload: string) => void): Promise<unknown>;
}

export function pgliteNotifications(pglite: PGliteListen): NotificationSource {
  const subscribers: Subscribers = new Map();
  const listened = new Map<string, Promise<unknown>>();
  return {
    subscribe(channel, events) {
      const set = subscribers.get(channel) ?? new Set();
      subscribers.set(channel, set.add(events));
      let listen = listened.get(channel);
      if (!listen) listened.set(channel, (listen = pglite.listen(channel, (payload) => dispatch(subscribers, channel, payload))));
      // Single-session: once LISTEN is in place no notice can be missed, so the view is always current.
      listen.then(
        () => {
          if (!set.has(events)) return;
          events.listening();
          events.alive(Number.POSITIVE_INFINITY);
        },
        () => events.lost(),
      );
      return () => {
        set.delete(events);
      };
    },
    async close() {
      subscribers.clear();
    },
  };
}
