// Deleting or disabling a client ends every token it holds. Its grants (refresh-token families, with the
// access tokens recorded under them) are revoked, then deleted with the client; client_credentials access
// tokens belong to no grant, so the client itself is put on the revocation list: every token of this
// client_id issued up to the moment each instance has forgotten the registration (CLIENT_CACHE_TTL) is
// refused by the resource API, /userinfo and /introspect until the last of them would have expired.
import type { Clock } from '../../clock.js';
import type { Config } from '../../config.js';
import type { Store } from '../../storage/store.js';
import type { ClientLookup } from './client-cache.js';

export interface EndClientDeps {
  store: Store;
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
  onEnded?: (trx: Store) => Promise<void>;
}

/** Deletes or disables the client and revokes all its tokens; false when there is no such client. */
/**
 * Puts the client on the revocation list: every token it was issued until every instance has forgotten
 * it is refused. Runs in the transaction that deletes or disables it.
 */
async function listAsRevoked(trx: Store, deps: Pick<EndClientDeps, 'clock' | 'config'>, clientId: string): Promise<void> {
  const { clock, config } = deps;
  // A stale cache elsewhere may still mint a client_credentials token until it forgets the client.
  const coversIssuedUntil = clock.now() + config.CLIENT_CACHE_TTL * 1000;
  const expiresAt = coversIssuedUntil + (config.ACCESS_TOKEN_TTL + config.CLOCK_SKEW) * 1000;
  await trx.revocations.revokeClient({ clientId, coversIssuedUntil: new Date(coversIssuedUntil), expiresAt: new Date(expiresAt) });
}

/** Disabling in a caller's transaction (the admin API's `disabled: true`): every grant revoked, the client listed as revoked. */
export async function revokeEveryTokenOf(trx: Store, deps: Pick<EndClientDeps, 'clock' | 'config'>, clientId: string): Promise<void> {
  await trx.grants.revoke({ clientId });
  await listAsRevoked(trx, deps, clientId);
}

export async function endClient(deps: EndClientDeps, clientId: string, how: ClientEnding, options: EndClientOptions = {}): Promise<boolean | 'stale'> {
  // store.transaction joins a caller's transaction (`gatehouse apply`): the ending commits with everything else or not at all.
  const ended = await deps.store.transaction(async (trx): Promise<boolean | 'stale'> => {
    const clients = trx.clients;
    if (options.expectedVersion !== undefined) {
      const version = await trx.clientAdmin.lockVersion(clientId);
      if (version === undefined) return false;
      if (version !== options.expectedVersion) return 'stale' as const;
    }
    if (how === 'delete') {
      // The repository revokes its grants (and their access tokens) before the delete cascades them away.
      if (!(await clients.delete(clientId))) return false;
      await listAsRevoked(trx, deps, clientId);
    } else {
      if (!(await clients.disable(clientId))) return false;
      await revokeEveryTokenOf(trx, deps, clientId);
    }
    await options.onEnded?.(trx);
    return true;
  });
  deps.clients.forget(clientId);
  return ended;
}
