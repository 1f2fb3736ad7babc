// The set of every origin some enabled client may call from, kept in memory per app: a preflight carries
// no client_id, so it can only be answered against all clients, and reading the clients table for every
// preflight would hand any web page a cheap way to load the database. One query rebuilds the set once it
// is older than CLIENT_CACHE_TTL (the freshness of the client cache, so a client created or deleted by the
// CLI or another instance counts everywhere within that time); a change made through this instance
// (/register, clients being ended) drops it at once. Concurrent rebuilds share one query. Bounded: at most
// MAX_CLIENTS clients and MAX_ORIGINS origins are indexed (the oldest clients first).
import type { Clock } from '../../clock.js';
import type { ClientsRepository } from '../../storage/repositories/clients-repository.js';
import { clientOrigins } from './origins.js';
import { freshSnapshot } from '../fresh-snapshot.js';

const MAX_CLIENTS = 10_000;
const MAX_ORIGINS = 20_000;

export interface OriginIndex {
  /** Whether some enabled client may call from this (already well-formed) origin. */
  allows(origin: string): Promise<boolean>;
  /** Rebuild on next use (a client changed on this instance). */
  forget(): void;
}

export function originIndex(clients: Pick<ClientsRepository, 'corsOrigins'>, clock: Clock, ttlSeconds: number): OriginIndex {
  const snapshot = freshSnapshot(
    async () => {
      const origins = new Set<string>();
      for (const row of await clients.corsOrigins(MAX_CLIENTS)) {
        for (const origin of clientOrigins(row)) {
          if (origins.size >= MAX_ORIGINS) break;
          origins.add(origin);
        }
      }
      return origins;
    },
    clock,
    ttlSeconds,
  );
  return {
    allows: async (origin) => (await snapshot.get()).has(origin),
    forget: () => snapshot.forget(),
  };
}
