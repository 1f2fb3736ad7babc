// A short-lived in-process copy of client lookups, so /token does not read the database for every request
// of a busy client. A deleted or changed client takes effect on every instance within CLIENT_CACHE_TTL
// seconds (0 turns the cache off). Unknown ids are cached too: otherwise a known (cached) client would
// answer faster than an unknown one and timing would reveal which client ids exist (RFC 6749 5.2 parity).
// The map is bounded (oldest entries go first) and concurrent misses share one query.
import type { Clock } from '../../clock.js';
import type { Client, ClientsRepository } from '../../storage/clients-repository.js';

const MAX_ENTRIES = 10_000;

export function cachedClients(clients: Pick<ClientsRepository, 'find'>, clock: Clock, ttlSeconds: number): Pick<ClientsRepository, 'find'> {
  if (ttlSeconds <= 0) return clients;
  const entries = new Map<string, { client: Client | undefined; until: number }>();
  const inFlight = new Map<string, Promise<Client | undefined>>();

  async function load(id: string): Promise<Client | undefined> {
    try {
      const client = await clients.find(id);
      if (entries.size >= MAX_ENTRIES) entries.delete(entries.keys().next().value!);
      entries.set(id, { client, until: clock.now() + ttlSeconds * 1000 });
      return client;
    } finally {
      inFlight.delete(id);
    }
  }

  return {
    find(id) {
      const entry = entries.get(id);
      if (entry && entry.until > clock.now()) return Promise.resolve(entry.client);
      entries.delete(id);
      let pending = inFlight.get(id);
      if (!pending) inFlight.set(id, (pending = load(id)));
      return pending;
    },
  };
}
