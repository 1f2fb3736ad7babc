// The demo's server-side sessions: a bounded LRU map with an idle lifetime. The browser holds only an
// opaque random id; the map is keyed by its SHA-256, so a heap dump shows no usable cookie values. At
// capacity the least recently used session is dropped (that visitor just signs in again). Each session
// belongs to the address that started it, and one address holds at most `maxPerOwner`: its next one
// replaces its own least recently used, so one address alone can never fill the store and push other
// visitors out (docs/demo.md has the arithmetic).
import { randomToken, sha256 } from '../crypto/random.js';

export interface SessionStore<T> {
  /** A new session holding `value` for `owner` (the client address); returns the id for the cookie. */
  create(value: T, owner: string): string;
  get(id: string | undefined): T | undefined;
  /** Replaces the value and issues a new id (the old one stops working), e.g. after signing in. */
  rotate(id: string, value: T): string | undefined;
  delete(id: string | undefined): void;
  readonly size: number;
}

interface Entry<T> {
  value: T;
  owner: string;
  lastUsed: number;
}

export function sessionStore<T>({
  maxEntries,
  maxPerOwner,
  idleMs,
  now,
}: {
  maxEntries: number;
  maxPerOwner: number;
  idleMs: number;
  now: () => number;
}): SessionStore<T> {
  const entries = new Map<string, Entry<T>>();
  const owned = new Map<string, number>();
  const remove = (key: string) => {
    const entry = entries.get(key);
    if (!entry) return false;
    entries.delete(key);
    const count = (owned.get(entry.owner) ?? 1) - 1;
    if (count === 0) owned.delete(entry.owner);
    else owned.set(entry.owner, count);
    return true;
  };
  const put = (value: T, owner: string): string => {
    // The owner's own least recently used session goes first (the front of the Map is the least recent).
    if ((owned.get(owner) ?? 0) >= maxPerOwner) {
      for (const [key, entry] of entries) {
        if (entry.owner === owner) {
          remove(key);
          break;
        }
      }
    }
    const id = randomToken(32);
    entries.set(sha256(id), { value, owner, lastUsed: now() });
    owned.set(owner, (owned.get(owner) ?? 0) + 1);
    while (entries.size > maxEntries) remove(entries.keys().next().value!);
    return id;
  };
  return {
    create: put,
    get(id) {
      if (id === undefined) return undefined;
      const key = sha256(id);
      const entry = entries.get(key);
      if (!entry) return undefined;
      if (now() - entry.lastUsed > idleMs) {
        remove(key);
        return undefined;
      }
      entries.delete(key);
      // Re-inserted: a Map iterates in insertion order, so the front is always the least recently used.
      entry.lastUsed = now();
      entries.set(key, entry);
      return entry.value;
    },
    rotate(id, value) {
      const key = sha256(id);
      const owner = entries.get(key)?.owner;
      if (owner === undefined || !remove(key)) return undefined;
      return put(value, owner);
    },
    delete(id) {
      if (id !== undefined) remove(sha256(id));
    },
    get size() {
      return entries.size;
    },
  };
}
