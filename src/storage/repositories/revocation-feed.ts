// The revocation list held in memory, one per app (docs/revocation-feed.md). It starts from the live
// rows and follows the announcements the database makes at every commit (notifications.ts), so a token
// is checked without a round trip. It answers from memory only while it can vouch for being current
// within `promiseMs` (the ≤ 1 s propagation promise): listener connected, list loaded since, heartbeat
// recent, size within bound. Otherwise it says "don't know" and the caller reads the database — a token
// found revoked in memory is refused either way, since a revocation is never withdrawn.
//
// Bounded by construction: an entry lives only until the tokens it covers expire (at most the longest
// access-token lifetime); past `maxEntries` it stops growing and falls back to the database until
// expiry has made room again, then reloads.
import { performance } from 'node:perf_hooks';
import type { Clock } from '../../clock.js';
import type { NotificationSource } from '../driver/notifications.js';
import { REVOCATIONS_CHANNEL, type LiveRevocations, type PresentedAccessToken, type RevocationsRepository } from './revocations-repository.js';

export interface RevocationCheck {
  /** Exact within the propagation promise; reads the database when memory cannot vouch. */
  isRevoked(token: PresentedAccessToken): Promise<boolean>;
  /** From memory only: true revoked, false not revoked (current within the promise), undefined unknown. */
  known(token: PresentedAccessToken): boolean | undefined;
}

export interface RevocationFeed extends RevocationCheck {
  /** Stops listening. Reading the database still works afterwards. */
  close(): void;
}

export interface RevocationFeedDeps {
  repository: Pick<RevocationsRepository, 'isRevoked' | 'live'>;
  notifications: NotificationSource | undefined;
  clock: Clock;
  promiseMs?: number;
  maxEntries?: number;
  warn?: (message: string, error?: unknown) => void;
}

export const REVOCATION_PROMISE_MS = 1_000;
const RELOAD_RETRY_MS = 1_000;
const PRUNE_EVERY_MS = 10_000;

interface ClientEntry {
  untilMs: number;
  expMs: number;
}

export function revocationFeed(deps: RevocationFeedDeps): RevocationFeed {
  const { repository, notifications, clock, warn = () => {} } = deps;
  const promiseMs = deps.promiseMs ?? REVOCATION_PROMISE_MS;
  const maxEntries = deps.maxEntries ?? 100_000;
  const jtis = new Map<string, number>();
  const clients = new Map<string, ClientEntry>();

  let unsubscribe: (() => void) | undefined;
  let closed = false;
  let listening = false;
  /** Bumped whenever what was delivered may have a gap (new connection, unreadable notice, overflow). */
  let epoch = 0;
  let loadedEpoch = -1;
  let loading: Promise<void> | undefined;
  let lastLoadAttempt = Number.NEGATIVE_INFINITY;
  let aliveAsOf = Number.NEGATIVE_INFINITY;
  let overflowed = false;
  let prunedAt = clock.now();

  const size = () => jtis.size + clients.size;
  const room = () => {
    if (size() < maxEntries) return true;
    if (!overflowed) warn(`revocation list over ${maxEntries} entries: checks read the database until entries expire`);
    overflowed = true;
    return false;
  };

  const addToken = (jti: string, expMs: number) => {
    if (expMs <= clock.now() || jtis.has(jti) || !room()) return;
    jtis.set(jti, expMs);
  };
  const addClient = (clientId: string, untilMs: number, expMs: number) => {
    if (expMs <= clock.now()) return;
    const old = clients.get(clientId);
    if (!old && !room()) return;
    clients.set(clientId, { untilMs: Math.max(untilMs, old?.untilMs ?? untilMs), expMs: Math.max(expMs, old?.expMs ?? expMs) });
  };

  const doubt = () => {
    epoch += 1;
  };

  function apply(live: LiveRevocations) {
    for (const t of live.tokens) addToken(t.jti, t.expiresAt.getTime());
    for (const c of live.clients) addClient(c.clientId, c.coversIssuedUntil.getTime(), c.expiresAt.getTime());
  }

  function reload() {
    if (loading || closed || !listening || performance.now() - lastLoadAttempt < RELOAD_RETRY_MS) return;
    lastLoadAttempt = performance.now();
    const target = epoch;
    // Notices arriving meanwhile are applied as they come; the union is right, as nothing is withdrawn.
    loading = repository
      .live()
      .then((live) => {
        apply(live);
        if (epoch === target && !overflowed) loadedEpoch = target;
        lastLoadAttempt = Number.NEGATIVE_INFINITY;
      })
      .catch((error: unknown) => warn('revocation list could not be loaded; checks read the database', error))
      .finally(() => {
        loading = undefined;
      });
  }

  function onNotice(payload: string) {
    try {
      const notice = JSON.parse(payload) as { jti?: unknown; client?: unknown; until?: unknown; exp?: unknown };
      if (typeof notice.exp !== 'number') throw new Error('no exp');
      if (typeof notice.jti === 'string') return addToken(notice.jti, notice.exp);
      if (typeof notice.client === 'string' && typeof notice.until === 'number') return addClient(notice.client, notice.until, notice.exp);
      throw new Error('neither jti nor client');
    } catch (error) {
      warn('unreadable revocation notice; reloading the revocation list', error);
      doubt();
      reload();
    }
  }

  function start() {
    if (unsubscribe || closed || !notifications) return;
    unsubscribe = notifications.subscribe(REVOCATIONS_CHANNEL, {
      notice: onNotice,
      listening() {
        listening = true;
        aliveAsOf = Number.NEGATIVE_INFINITY;
        doubt();
        lastLoadAttempt = Number.NEGATIVE_INFINITY;
        reload();
      },
      alive(asOfMs) {
        aliveAsOf = Math.max(aliveAsOf, asOfMs);
      },
      lost() {
        listening = false;
        aliveAsOf = Number.NEGATIVE_INFINITY;
        doubt();
      },
    });
  }

  function prune() {
    const now = clock.now();
    if (now - prunedAt < PRUNE_EVERY_MS) return;
    prunedAt = now;
    for (const [jti, expMs] of jtis) if (expMs <= now) jtis.delete(jti);
    for (const [clientId, entry] of clients) if (entry.expMs <= now) clients.delete(clientId);
    if (overflowed && size() < maxEntries * 0.9) {
      overflowed = false;
      doubt();
      reload();
    }
  }

  const current = () => listening && loadedEpoch === epoch && !overflowed && performance.now() - aliveAsOf <= promiseMs;

  function known({ jti, clientId, iat }: PresentedAccessToken): boolean | undefined {
    start();
    prune();
    if (jtis.has(jti)) return true;
    const client = clients.get(clientId);
    if (client && client.untilMs >= iat * 1000) return true;
    if (current()) return false;
    if (listening && loadedEpoch !== epoch) reload();
    return undefined;
  }

  return {
    known,
    async isRevoked(token) {
      return known(token) ?? repository.isRevoked(token);
    },
    close() {
      closed = true;
      unsubscribe?.();
    },
  };
}
