// A copy of Gatehouse's revocation list kept over HTTP, for a resource server deployed apart from Gatehouse
// (`gatehouse protect`, or any API using this package): it polls GET {issuer}/resource-server/revocations with
// the resource server's own credentials every `intervalMs` (default 500 ms), asking only for what was revoked
// since its last cursor, and reloads the whole list every `fullReloadMs`. It is a RevocationChecker:
//
//   - known(token): answers from memory while the last successful poll is younger than `promiseMs` (1 s), so a
//     revocation committed anywhere is refused here within interval + one round trip; older, it cannot vouch;
//   - isRevoked(token): answers from memory while the last successful poll is younger than `maxStaleMs`
//     (default 30 s) — Gatehouse briefly unreachable, requests go on — and throws past that: the request is
//     then refused with 503 (fail closed) until a poll succeeds again.
//
// The copy is the kit's bounded revocation list (revocation-list.ts, the same Gatehouse's own feed keeps): an entry
// is dropped once the tokens it covers have expired, expired entries are swept every 10 s, and past `maxEntries`
// (100,000) the copy stops growing — it can then no longer vouch for "not revoked", so every check fails closed
// (503) until expiry has made room and a full reload has refilled it. The feed answers in pages (at most 1,000
// entries each, `next` to continue); a full listing is read page by page. Nothing is ever un-revoked.
//
// An entry the feed answers malformed is handled deliberately, never turned into NaN: it is logged (onMalformed)
// and, when it still names what it revokes, kept on the safe side — a jti with an unreadable `exp` stays revoked
// for `maxEntryLifetimeMs` (the longest token lifetime accepted), a client with an unreadable
// `covers_issued_until` covers every token issued until it was read; an entry naming nothing is skipped.
import type { PresentedAccessToken, RevocationChecker } from './authenticator.js';
import { systemClock, type Clock } from './clock.js';
import { revocationList } from './revocation-list.js';

export interface RevocationFollowerOptions {
  /** Gatehouse's issuer URL; the feed is `{issuer}/resource-server/revocations`. */
  issuer: string;
  /** The resource server's credentials (from `gatehouse resource-servers create`). */
  clientId: string;
  clientSecret: string;
  intervalMs?: number;
  promiseMs?: number;
  maxStaleMs?: number;
  fullReloadMs?: number;
  /** Per poll. */
  timeoutMs?: number;
  clock?: Clock;
  fetch?: typeof fetch;
  onError?: (error: unknown) => void;
  /** Default 100,000 entries; past it the copy fails closed until room is made (see above). */
  maxEntries?: number;
  /** How long an entry whose `exp` is unreadable stays (default 24 h, the proxy's longest token lifetime). */
  maxEntryLifetimeMs?: number;
  /** A malformed entry of the feed: what was wrong and what was done (never logged silently). */
  onMalformed?: (message: string, detail: { kind: 'token' | 'client'; problem: string; action: 'kept' | 'skipped' }) => void;
  /** The list stopped growing at its bound. */
  onOverflow?: (maxEntries: number) => void;
}

export interface RevocationFollower extends RevocationChecker {
  /** From memory: true revoked, false not revoked (current within the promise), undefined cannot vouch. */
  known(token: PresentedAccessToken): boolean | undefined;
  /** Resolves after the first complete load (rejects if it fails; the follower keeps trying). */
  readonly ready: Promise<void>;
  /** Milliseconds since the last successful poll (Infinity before the first). */
  age(): number;
  /** Whether requests can be answered at all (a poll succeeded within maxStaleMs). */
  usable(): boolean;
  readonly size: () => number;
  /** Polls once now (tests, start-up). */
  poll(): Promise<void>;
  stop(): void;
}

interface Feed {
  cursor: string;
  complete: boolean;
  tokens: unknown[];
  clients: unknown[];
  next?: string;
}

/** Pages one poll follows at most (1,000 entries each): past the list's bound anyway. */
const MAX_PAGES_PER_POLL = 200;

export class RevocationsUnavailable extends Error {
  override readonly name = 'RevocationsUnavailable';
}

export function revocationFollower(options: RevocationFollowerOptions): RevocationFollower {
  const clock = options.clock ?? systemClock;
  const intervalMs = options.intervalMs ?? 500;
  const promiseMs = options.promiseMs ?? 1000;
  const maxStaleMs = options.maxStaleMs ?? 30_000;
  const fullReloadMs = options.fullReloadMs ?? 60_000;
  const timeoutMs = options.timeoutMs ?? Math.max(intervalMs * 2, 1000);
  const doFetch = options.fetch ?? fetch;
  const url = `${options.issuer.replace(/\/$/, '')}/resource-server/revocations`;
  const authorization = `Basic ${Buffer.from(`${encodeURIComponent(options.clientId)}:${encodeURIComponent(options.clientSecret)}`).toString('base64')}`;

  const maxEntryLifetimeMs = options.maxEntryLifetimeMs ?? 24 * 3600_000;
  const list = revocationList({
    clock,
    ...(options.maxEntries !== undefined ? { maxEntries: options.maxEntries } : {}),
    ...(options.onOverflow ? { onOverflow: options.onOverflow } : {}),
  });
  let cursor: string | undefined;
  let lastSuccess = Number.NEGATIVE_INFINITY;
  let lastFull = Number.NEGATIVE_INFINITY;
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;
  let inFlight: Promise<void> | undefined;

  const malformed = (kind: 'token' | 'client', problem: string, action: 'kept' | 'skipped') =>
    options.onMalformed?.(`malformed revocation ${kind} entry ${action}: ${problem}`, { kind, problem, action });
  /** Epoch seconds as the feed writes them, or undefined. */
  const secondsOf = (value: unknown) => (typeof value === 'number' && Number.isFinite(value) && value >= 0 ? value * 1000 : undefined);

  function merge(feed: Feed): void {
    const now = clock.now();
    for (const entry of feed.tokens) {
      const { jti, exp } = (entry ?? {}) as { jti?: unknown; exp?: unknown };
      if (typeof jti !== 'string' || jti === '') {
        malformed('token', 'no jti', 'skipped');
        continue;
      }
      const expMs = secondsOf(exp);
      if (expMs === undefined) malformed('token', 'exp is not a number of seconds', 'kept');
      list.addToken(jti, expMs ?? now + maxEntryLifetimeMs);
    }
    for (const entry of feed.clients) {
      const { client_id: clientId, covers_issued_until: until, exp } = (entry ?? {}) as Record<string, unknown>;
      if (typeof clientId !== 'string' || clientId === '') {
        malformed('client', 'no client_id', 'skipped');
        continue;
      }
      const untilMs = secondsOf(until);
      const expMs = secondsOf(exp);
      if (untilMs === undefined || expMs === undefined) malformed('client', 'covers_issued_until or exp is not a number of seconds', 'kept');
      list.addClient(clientId, untilMs ?? now, expMs ?? now + maxEntryLifetimeMs);
    }
  }

  async function fetchPage(target: string): Promise<Feed> {
    const response = await doFetch(target, {
      headers: { authorization, accept: 'application/json' },
      redirect: 'error',
      signal: AbortSignal.timeout(timeoutMs),
    });
    if (!response.ok) throw new RevocationsUnavailable(`the revocation feed answered ${response.status}`);
    const feed = (await response.json()) as Feed;
    if (
      typeof feed?.cursor !== 'string' ||
      !Array.isArray(feed.tokens) ||
      !Array.isArray(feed.clients) ||
      (feed.next !== undefined && typeof feed.next !== 'string')
    )
      throw new RevocationsUnavailable('the revocation feed answered something else');
    return feed;
  }

  async function pollOnce(): Promise<void> {
    // Room again after an overflow: entries refused meanwhile are missing, so the next read is a full one.
    if (list.prune()) lastFull = Number.NEGATIVE_INFINITY;
    const full = cursor === undefined || clock.now() - lastFull >= fullReloadMs;
    let feed = await fetchPage(full ? url : `${url}?since=${encodeURIComponent(cursor!)}`);
    const listingCursor = feed.cursor;
    merge(feed);
    // Every page of one listing carries the cursor of its first; the next catch-up starts there.
    for (let pages = 1; feed.next !== undefined && !list.overflowed(); pages += 1) {
      if (pages >= MAX_PAGES_PER_POLL) throw new RevocationsUnavailable(`the revocation feed has more than ${MAX_PAGES_PER_POLL} pages`);
      feed = await fetchPage(`${url}?page=${encodeURIComponent(feed.next)}`);
      merge(feed);
    }
    cursor = listingCursor;
    if (full) lastFull = clock.now();
  }

  const poll = (): Promise<void> => {
    // The time of success is when the request was sent: everything committed before it is in the answer.
    const sentAt = clock.now();
    inFlight ??= pollOnce()
      .then(() => {
        lastSuccess = Math.max(lastSuccess, sentAt);
      })
      .finally(() => {
        inFlight = undefined;
      });
    return inFlight;
  };

  const ready = poll();
  ready.catch(() => {});

  const schedule = () => {
    if (stopped) return;
    timer = setTimeout(() => {
      poll()
        .catch((error: unknown) => options.onError?.(error))
        .finally(schedule);
    }, intervalMs);
    timer.unref();
  };
  schedule();

  const revokedInMemory = (token: PresentedAccessToken): boolean => list.revoked(token);
  const age = () => clock.now() - lastSuccess;

  return {
    ready,
    age,
    usable: () => age() < maxStaleMs && !list.overflowed(),
    size: list.size,
    poll,
    known(token) {
      if (revokedInMemory(token)) return true;
      return age() < promiseMs && !list.overflowed() ? false : undefined;
    },
    async isRevoked(token) {
      if (revokedInMemory(token)) return true;
      if (list.overflowed()) throw new RevocationsUnavailable(`the revocation list is over its bound; checks fail closed until entries expire`);
      if (age() >= maxStaleMs) throw new RevocationsUnavailable(`no revocation list from ${url} for ${Math.round(age() / 1000)} s`);
      return false;
    },
    stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
    },
  };
}
