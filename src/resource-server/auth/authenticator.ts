// Bearer token → Principal, for the resource API: the resource-server kit's authenticator
// (packages/resource-server-kit/src/authenticator.ts: verified-token cache, full verification on a miss, the
// revocation list either way), its refusals thrown as Problem Details. The revocation list is the app's
// in-memory copy (storage/revocation-feed.ts), asked on every request, cached token or not: a revocation
// committed anywhere takes effect within the feed's promise, one written here by the time its write returns.
// When the copy cannot vouch (listener down) a first use reads the database and a cached token re-checks it at
// most once per `recheckMs`; that re-check also drops a token whose signing key is no longer published.
import { bearerAuthenticator as kitAuthenticator, type Authenticator as KitAuthenticator } from '@gatehouse/resource-server';
import type { Clock } from '../../clock.js';
import type { Principal } from '../../http/principal.js';
import type { RevocationsRepository } from '../../storage/repositories/revocations-repository.js';
import type { RevocationCheck } from '../../storage/repositories/revocation-feed.js';
import type { AccessTokenVerifier } from '../../tokens/access-token-verifier.js';
import type { KeySource } from '../../tokens/key-source.js';
import { problemOf } from './challenges.js';

export { DEFAULT_REVOCATION_RECHECK_MS } from '@gatehouse/resource-server';

export interface Authenticator {
  authenticate(token: string): Promise<Principal>;
}

export interface AuthenticatorOptions {
  verifier: AccessTokenVerifier;
  keySource: Pick<KeySource, 'publishedKids'>;
  /** The app's revocation feed; a bare repository (reads on every check) works too. */
  revocations: Pick<RevocationsRepository, 'isRevoked'> & Partial<Pick<RevocationCheck, 'known'>>;
  clock: Clock;
  /** How stale a cached token's revocation status may be (ms). 0 re-checks on every request. */
  recheckMs?: number;
  cacheSize?: number;
}

/** The kit's authenticator with its refusals as Problem Details (401 with the challenge, 503 when the keys are unavailable). */
export function problemAuthenticator(authenticator: KitAuthenticator): Authenticator {
  return {
    async authenticate(token) {
      const result = await authenticator.authenticate(token);
      if (!result.ok) throw problemOf(result);
      return result.identity;
    },
  };
}

export function bearerAuthenticator(options: AuthenticatorOptions): Authenticator {
  return problemAuthenticator(kitAuthenticator(options));
}
