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
import { revocationList } from '@gatehouse/resource-server';
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

export function revocationFeed(deps: RevocationFeedDeps): RevocationFeed {
  const { repository, notifications, clock, warn = () => {} } = deps;
  const promiseMs = deps.promiseMs ?? REVOCATION_PROMISE_MS;
  // The bounded list itself is the kit's, shared with the copy a resource server follows over HTTP.
  const list = revocationList({
    clock,
    ...(deps.maxEntries !== undefined ? { maxEntries: deps.maxEntries } : {}),
    onOverflow: (max) => warn(`revocation list over ${max} entries: checks read the database until entries expire`),
  });

  let unsubscribe: (() => void) | undefined;
  let closed = false;
  let listening = false;
  /** Bumped whenever what was delivered may have a gap (new connection, unreadable notice, overflow). */
  let epoch = 0;
  let loadedEpoch = -1;
  let loading: Promise<void> | undefined;
  let lastLoadAttempt = Number.NEGATIVE_INFINITY;
  let aliveAsOf = Number.NEGATIVE_INFINITY;
  const addToken = (jti: string, expMs: number) => list.addToken(jti, expMs);
  const addClient = (clientId: string, untilMs: number, expMs: number) => list.addClient(clientId, untilMs, expMs);

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
        if (epoch === target && !list.overflowed()) loadedEpoch = target;
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
    // Room again after an overflow: what was refused meanwhile is missing, reload it.
    if (list.prune()) {
      doubt();
      reload();
    }
  }

  const current = () => listening && loadedEpoch === epoch && !list.overflowed() && performance.now() - aliveAsOf <= promiseMs;

  function known({ jti, clientId, iat }: PresentedAccessToken): boolean | undefined {
    start();
    prune();
    if (list.revoked({ jti, clientId, iat })) return true;
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
