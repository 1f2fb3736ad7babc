// A short-lived in-process copy of client lookups, so /token, /authorize and the login pages do not read
// the database for every request of a busy client. One per app (Core.clients). A client changed or
// deleted through this instance (/register) is forgotten at once; a change made elsewhere (the CLI,
// another instance) takes effect within CLIENT_CACHE_TTL seconds (0 turns the cache off). Unknown ids are cached too: otherwise a known (cached) client would
// answer faster than an unknown one and timing would reveal which client ids exist (RFC 6749 5.2 parity).
// The map is bounded (oldest entries go first) and concurrent misses share one query.
import type { Clock } from '../../clock.js';
import type { Client, ClientsRepository } from '../../storage/repositories/clients-repository.js';

const MAX_ENTRIES = 10_000;

export interface ClientLookup extends Pick<ClientsRepository, 'find'> {
  /** Drops what this instance remembers of a client (it was just changed or deleted here). */
  forget(id: string): void;
  /** Why `find` found no client for this id, when there is more to say than "unknown" (a refused metadata document). */
  refusal?(id: string): { code: string; message: string } | undefined;
  /** A real use of the client (an authorization or token request): what keeps an open client from the unused purge. */
  noteUse?(client: Client): Promise<void>;
}

export function cachedClients(clients: Pick<ClientsRepository, 'find'>, clock: Clock, ttlSeconds: number): ClientLookup {
  if (ttlSeconds <= 0) return { find: (id) => clients.find(id), forget: () => {} };
  const entries = new Map<string, { client: Client | undefined; until: number }>();
  const inFlight = new Map<string, Promise<Client | undefined>>();

  /** Keeps what a read returned, unless forget() ran while it was in flight (it may predate the change). */
  function settle(id: string, read: Promise<Client | undefined>, found?: { client: Client | undefined }): void {
    if (inFlight.get(id) !== read) return;
    inFlight.delete(id);
    if (!found) return;
    if (entries.size >= MAX_ENTRIES) entries.delete(entries.keys().next().value!);
    entries.set(id, { client: found.client, until: clock.now() + ttlSeconds * 1000 });
  }

  return {
    find(id) {
      const entry = entries.get(id);
      if (entry && entry.until > clock.now()) return Promise.resolve(entry.client);
      entries.delete(id);
      const pending = inFlight.get(id);
      if (pending) return pending;
      const read: Promise<Client | undefined> = clients.find(id).then(
        (client) => {
          settle(id, read, { client });
          return client;
        },
        (error: unknown) => {
          settle(id, read);
          throw error;
        },
      );
      inFlight.set(id, read);
      return read;
    },
    forget(id) {
      entries.delete(id);
      inFlight.delete(id);
    },
  };
}
