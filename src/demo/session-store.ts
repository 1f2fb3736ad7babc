// The demo's server-side sessions: a bounded LRU map with an idle lifetime. The browser holds only an
// opaque random id; the map is keyed by its SHA-256, so a heap dump shows no usable cookie values. At
// capacity the least recently used session is dropped (that visitor just signs in again).
import { randomToken, sha256 } from '../crypto/random.js';

export interface SessionStore<T> {
  /** A new session holding `value`; returns the id for the cookie. */
  create(value: T): string;
  get(id: string | undefined): T | undefined;
  /** Replaces the value and issues a new id (the old one stops working), e.g. after signing in. */
  rotate(id: string, value: T): string | undefined;
  delete(id: string | undefined): void;
  readonly size: number;
}

interface Entry<T> {
  value: T;
  lastUsed: number;
}

export function sessionStore<T>({ maxEntries, idleMs, now }: { maxEntries: number; idleMs: number; now: () => number }): SessionStore<T> {
  const entries = new Map<string, Entry<T>>();
  const put = (value: T): string => {
    const id = randomToken(32);
    entries.set(sha256(id), { value, lastUsed: now() });
    while (entries.size > maxEntries) entries.delete(entries.keys().next().value!);
    return id;
  };
  return {
    create: put,
    get(id) {
      if (id === undefined) return undefined;
      const key = sha256(id);
      const entry = entries.get(key);
      if (!entry) return undefined;
      entries.delete(key);
      if (now() - entry.lastUsed > idleMs) return undefined;
      // Re-inserted: a Map iterates in insertion order, so the front is always the least recently used.
      entry.lastUsed = now();
      entries.set(key, entry);
      return entry.value;
    },
    rotate(id, value) {
      const key = sha256(id);
      if (!entries.delete(key)) return undefined;
      return put(value);
    },
    delete(id) {
      if (id !== undefined) entries.delete(sha256(id));
    },
    get size() {
      return entries.size;
    },
  };
}
