// A bounded LRU of tokens whose signature and claims have already been verified, keyed by the exact
// token string, so a client reusing one token pays the signature check once. An entry never outlives
// the token's `exp`; revocation is still honoured by the authenticator, which re-checks it.
import type { Clock } from './clock.js';

export interface VerifiedTokenCache<T> {
  get(token: string): T | undefined;
  set(token: string, value: T, expiresAtMs: number): void;
  delete(token: string): void;
  readonly size: number;
}

export function verifiedTokenCache<T>(clock: Clock, maxEntries = 10_000): VerifiedTokenCache<T> {
  // A Map iterates in insertion order, so re-inserting on a hit makes the first key the least recent.
  const entries = new Map<string, { value: T; expiresAtMs: number }>();
  return {
    get(token) {
      const entry = entries.get(token);
      if (!entry) return undefined;
      entries.delete(token);
      if (clock.now() >= entry.expiresAtMs) return undefined;
      entries.set(token, entry);
      return entry.value;
    },
    set(token, value, expiresAtMs) {
      if (clock.now() >= expiresAtMs) return;
      entries.delete(token);
      entries.set(token, { value, expiresAtMs });
      while (entries.size > maxEntries) entries.delete(entries.keys().next().value as string);
    },
    delete(token) {
      entries.delete(token);
    },
    get size() {
      return entries.size;
    },
  };
}
