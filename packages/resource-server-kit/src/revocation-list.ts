// The revocation list held in memory, bounded: one implementation for Gatehouse's own feed (revocations announced
// by the database, src/storage/repositories/revocation-feed.ts) and for a copy followed over HTTP
// (revocation-follower.ts). An entry is kept only until the tokens it covers expire; expired entries are dropped at
// most every `pruneEveryMs` (the scan is not paid per request); past `maxEntries` the list stops growing and says
// so (`overflowed`): its owner must then stop vouching for "not revoked" and reload once expiry has made room
// (prune answers true then). Nothing is ever un-revoked: a client entry only widens.
import type { PresentedAccessToken } from './authenticator.js';
import type { Clock } from './clock.js';

export interface RevocationList {
  /** A revoked jti until `expMs`; ignored once expired, or when the list is full (then `overflowed`). */
  addToken(jti: string, expMs: number): void;
  /** Every token of the client issued up to `untilMs`, until `expMs`; widens an existing entry. */
  addClient(clientId: string, untilMs: number, expMs: number): void;
  /** Whether the list has the token revoked (its jti, or its client since before it was issued). */
  revoked(token: PresentedAccessToken): boolean;
  /**
   * Drops expired entries, at most every `pruneEveryMs`. True when the list had overflowed and now has room again
   * (below 90 % of the bound): what was refused meanwhile is missing, the owner reloads.
   */
  prune(): boolean;
  size(): number;
  /** Entries were refused for lack of room since the list last had room again. */
  overflowed(): boolean;
}

export interface RevocationListOptions {
  clock: Clock;
  /** Default 100,000 entries (jtis and clients together). */
  maxEntries?: number;
  /** Default 10 s. */
  pruneEveryMs?: number;
  /** Called once when the list first refuses an entry for lack of room. */
  onOverflow?: (maxEntries: number) => void;
}

export const DEFAULT_REVOCATION_LIST_ENTRIES = 100_000;

export function revocationList(options: RevocationListOptions): RevocationList {
  const { clock } = options;
  const maxEntries = options.maxEntries ?? DEFAULT_REVOCATION_LIST_ENTRIES;
  const pruneEveryMs = options.pruneEveryMs ?? 10_000;
  const jtis = new Map<string, number>();
  const clients = new Map<string, { untilMs: number; expMs: number }>();
  let overflowed = false;
  let prunedAt = clock.now();

  const size = () => jtis.size + clients.size;
  const room = () => {
    if (size() < maxEntries) return true;
    if (!overflowed) options.onOverflow?.(maxEntries);
    overflowed = true;
    return false;
  };

  return {
    addToken(jti, expMs) {
      if (expMs <= clock.now()) return;
      const old = jtis.get(jti);
      if (old !== undefined) {
        if (expMs > old) jtis.set(jti, expMs);
        return;
      }
      if (room()) jtis.set(jti, expMs);
    },
    addClient(clientId, untilMs, expMs) {
      if (expMs <= clock.now()) return;
      const old = clients.get(clientId);
      if (!old && !room()) return;
      clients.set(clientId, { untilMs: Math.max(untilMs, old?.untilMs ?? untilMs), expMs: Math.max(expMs, old?.expMs ?? expMs) });
    },
    revoked({ jti, clientId, iat }) {
      if (jtis.has(jti)) return true;
      const client = clients.get(clientId);
      return client !== undefined && client.untilMs >= iat * 1000;
    },
    prune() {
      const now = clock.now();
      if (now - prunedAt < pruneEveryMs) return false;
      prunedAt = now;
      for (const [jti, expMs] of jtis) if (expMs <= now) jtis.delete(jti);
      for (const [clientId, entry] of clients) if (entry.expMs <= now) clients.delete(clientId);
      if (overflowed && size() < maxEntries * 0.9) {
        overflowed = false;
        return true;
      }
      return false;
    },
    size,
    overflowed: () => overflowed,
  };
}
