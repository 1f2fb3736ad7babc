// What keeps a client nobody registered by hand alive (docs/agents.md, "What such clients may hold"): housekeeping
// deletes an open client that has no live grant and was not *used* within OPEN_CLIENT_UNUSED_TTL. A use is a
// token issued to it, which needs a user who signed in or approved a device for it — never an anonymous request
// naming it (/authorize, /device_authorization) nor a fetch of its metadata document: whoever registered the row
// (or anyone naming its URL) could repeat those for ever to keep it.
// The TTL is counted in days, so the row is rewritten at most once an hour (one conditional update by primary
// key, which changes nothing when the last use is recent); operator-made clients cost nothing.
import type { Client } from '../../storage/repositories/clients-repository.js';
import type { Store } from '../../storage/store.js';

const OPEN_CLIENT_USE_GRANULARITY_MS = 3_600_000;

export function openClientUses(store: Pick<Store, 'clients'>): { note(client: Client): Promise<void> } {
  return {
    async note(client) {
      if (client.provenance === null) return;
      await store.clients.markOpenClientUsed(client.id, OPEN_CLIENT_USE_GRANULARITY_MS);
    },
  };
}
