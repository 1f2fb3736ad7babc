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
// An entry is dropped once the tokens it covers have expired; nothing is ever un-revoked.
import type { PresentedAccessToken, RevocationChecker } from './authenticator.js';
import { systemClock, type Clock } from './clock.js';

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
}

export interface RevocationFollower extends RevocationChecker {
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
  tokens: { jti: string; exp: number }[];
  clients: { client_id: string; covers_issued_until: number; exp: number }[];
}

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

  const tokens = new Map<string, number>();
  const clients = new Map<string, { coversIssuedUntil: number; exp: number }>();
  let cursor: string | undefined;
  let lastSuccess = Number.NEGATIVE_INFINITY;
  let lastFull = Number.NEGATIVE_INFINITY;
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;
  let inFlight: Promise<void> | undefined;

  function merge(feed: Feed): void {
    for (const t of feed.tokens) if (typeof t.jti === 'string' && Number.isFinite(t.exp)) tokens.set(t.jti, Math.max(tokens.get(t.jti) ?? 0, t.exp));
    for (const c of feed.clients) {
      if (typeof c.client_id !== 'string') continue;
      const before = clients.get(c.client_id);
      clients.set(c.client_id, {
        coversIssuedUntil: Math.max(before?.coversIssuedUntil ?? 0, c.covers_issued_until),
        exp: Math.max(before?.exp ?? 0, c.exp),
      });
    }
  }

  function purge(): void {
    const now = clock.now() / 1000;
    for (const [jti, exp] of tokens) if (exp < now) tokens.delete(jti);
    for (const [id, entry] of clients) if (entry.exp < now) clients.delete(id);
  }

  async function pollOnce(): Promise<void> {
    const full = cursor === undefined || clock.now() - lastFull >= fullReloadMs;
    const target = full ? url : `${url}?since=${encodeURIComponent(cursor!)}`;
    const response = await doFetch(target, {
      headers: { authorization, accept: 'application/json' },
      redirect: 'error',
      signal: AbortSignal.timeout(timeoutMs),
    });
    if (!response.ok) throw new RevocationsUnavailable(`the revocation feed answered ${response.status}`);
    const feed = (await response.json()) as Feed;
    if (typeof feed?.cursor !== 'string' || !Array.isArray(feed.tokens) || !Array.isArray(feed.clients))
      throw new RevocationsUnavailable('the revocation feed answered something else');
    merge(feed);
    cursor = feed.cursor;
    if (full) lastFull = clock.now();
    purge();
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

  const revokedInMemory = ({ jti, clientId, iat }: PresentedAccessToken): boolean => {
    if (tokens.has(jti)) return true;
    const client = clients.get(clientId);
    return client !== undefined && client.coversIssuedUntil >= iat;
  };
  const age = () => clock.now() - lastSuccess;

  return {
    ready,
    age,
    usable: () => age() < maxStaleMs,
    size: () => tokens.size + clients.size,
    poll,
    known(token) {
      if (revokedInMemory(token)) return true;
      return age() < promiseMs ? false : undefined;
    },
    async isRevoked(token) {
      if (revokedInMemory(token)) return true;
      if (age() >= maxStaleMs) throw new RevocationsUnavailable(`no revocation list from ${url} for ${Math.round(age() / 1000)} s`);
      return false;
    },
    stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
    },
  };
}
