// Deleting or disabling a client ends every token it holds. Its grants (refresh-token families, with the
// access tokens recorded under them) are revoked, then deleted with the client; client_credentials access
// tokens belong to no grant, so the client itself is put on the revocation list: every token of this
// client_id issued up to the moment each instance has forgotten the registration (CLIENT_CACHE_TTL) is
// refused by the resource API, /userinfo and /introspect until the last of them would have expired.
import type { Clock } from '../../clock.js';
import type { Config } from '../../config.js';
import { clientsRepository } from '../../storage/clients-repository.js';
import { clientAdminRepository } from '../../storage/client-admin-repository.js';
import type { Db } from '../../storage/database.js';
import { runTransaction } from '../../storage/after-commit.js';
import { grantsRepository } from '../../storage/grants-repository.js';
import { revocationsRepository } from '../../storage/revocations-repository.js';
import type { ClientLookup } from './client-cache.js';

export interface EndClientDeps {
  db: Db;
  clock: Clock;
  config: Pick<Config, 'ACCESS_TOKEN_TTL' | 'CLOCK_SKEW' | 'CLIENT_CACHE_TTL'>;
  /** This instance's client cache, told at once; other instances forget within CLIENT_CACHE_TTL. */
  clients: Pick<ClientLookup, 'forget'>;
}

export type ClientEnding = 'delete' | 'disable';

export interface EndClientOptions {
  /** Only if the client is still at this version (the admin API's If-Match); 'stale' otherwise. */
  expectedVersion?: number;
  /** Runs in the same transaction once the client is ended (the audit event). */
  onEnded?: (trx: Db) => Promise<void>;
}

/** Deletes or disables the client and revokes all its tokens; false when there is no such client. */
export async function endClient(deps: EndClientDeps, clientId: string, how: ClientEnding, options: EndClientOptions = {}): Promise<boolean | 'stale'> {
  const { clock, config } = deps;
  const now = clock.now();
  // A stale cache elsewhere may still mint a client_credentials token until it forgets the client.
  const coversIssuedUntil = now + config.CLIENT_CACHE_TTL * 1000;
  const expiresAt = coversIssuedUntil + (config.ACCESS_TOKEN_TTL + config.CLOCK_SKEW) * 1000;
  const ended = await runTransaction(deps.db, async (trx) => {
    const clients = clientsRepository(trx, clock);
    if (options.expectedVersion !== undefined) {
      const version = await clientAdminRepository(trx, clock).lockVersion(clientId);
      if (version === undefined) return false;
      if (version !== options.expectedVersion) return 'stale' as const;
    }
    if (how === 'delete') {
      // The repository revokes its grants (and their access tokens) before the delete cascades them away.
      if (!(await clients.delete(clientId))) return false;
    } else {
      if (!(await clients.disable(clientId))) return false;
      await grantsRepository(trx, clock).revoke({ clientId });
    }
    await revocationsRepository(trx, clock).revokeClient({ clientId, coversIssuedUntil: new Date(coversIssuedUntil), expiresAt: new Date(expiresAt) });
    await options.onEnded?.(trx);
    return true;
  });
  deps.clients.forget(clientId);
  return ended;
}
