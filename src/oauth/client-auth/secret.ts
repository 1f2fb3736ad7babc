// client_secret_basic / client_secret_post: the SHA-256 of the presented secret is compared in constant
// time with the stored one. An unknown client is compared against a dummy hash, so both paths do the same work.
// After a rotation the previous secret is accepted until its expiry (docs/admin-api.md): both hashes are
// always compared, so whether a client has a previous secret does not show in the timing.
import { digestsEqual, randomToken, sha256 } from '../../crypto/random.js';
import type { Client } from '../../storage/repositories/clients-repository.js';

const DUMMY_SECRET_HASH = sha256(randomToken(32));

function secretMatches(storedHash: string | null | undefined, presented: string): boolean {
  const matches = digestsEqual(sha256(presented), storedHash ?? DUMMY_SECRET_HASH);
  return matches && typeof storedHash === 'string';
}

/** The current secret, or the previous one while its overlap window lasts (`now` in epoch ms). */
export function clientSecretMatches(
  client: Pick<Client, 'secretHash' | 'previousSecretHash' | 'previousSecretExpiresAt'> | undefined,
  presented: string,
  now: number,
): boolean {
  const current = secretMatches(client?.secretHash, presented);
  const previousLive = client?.previousSecretExpiresAt != null && now < client.previousSecretExpiresAt.getTime();
  const previous = secretMatches(previousLive ? client?.previousSecretHash : undefined, presented);
  return current || previous;
}
