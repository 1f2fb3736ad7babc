// client_secret_basic / client_secret_post: the SHA-256 of the presented secret is compared in constant
// time with the stored one. An unknown client is compared against a dummy hash, so both paths do the same work.
import { digestsEqual, randomToken, sha256 } from '../../crypto/random.js';

const DUMMY_SECRET_HASH = sha256(randomToken(32));

export function secretMatches(storedHash: string | null | undefined, presented: string): boolean {
  const matches = digestsEqual(sha256(presented), storedHash ?? DUMMY_SECRET_HASH);
  return matches && typeof storedHash === 'string';
}
