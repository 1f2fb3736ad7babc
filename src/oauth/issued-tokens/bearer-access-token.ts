// Our own access tokens presented to the authorization server's endpoints (/userinfo, /revoke,
// /introspect): verified by the one RFC 9068 verifier the resource API uses (src/tokens: pinned
// algorithm, typ, no crit, iss, aud, times, lifetime, claim types, cnf), then the revocation list. Anything
// invalid — including refresh tokens and id_tokens — is simply `undefined` here: each endpoint answers in
// its own format. Unavailable keys still throw (503), since the token is not at fault. The audience may be
// any registered resource server (RFC 8707: the authorization server issued it for one of them), alone or next
// to the issuer's /userinfo (token-audience.ts); /userinfo itself checks that it is named.
import { decodeJwt } from 'jose';
import type { OAuthDeps } from '../deps.js';
import { ProblemError } from '../../http/errors.js';
import type { RevocationsRepository } from '../../storage/repositories/revocations-repository.js';
import { accessTokenVerifier, type AccessTokenClaims, type TokenRefusal } from '../../tokens/access-token-verifier.js';
import { keyServiceSource } from '../../tokens/key-source.js';
import { resourceOfAudience } from './token-audience.js';

export type { AccessTokenClaims };

/** Why an access token was not accepted here, for the endpoint's refusal log line; never the token. */
export type BearerRefusal = TokenRefusal | 'unregistered_audience' | 'revoked';

/**
 * The claims of an acceptable token, else undefined. `refused` hears why (only the endpoints that log a
 * refusal ask: introspection's `active: false` is an answer, not a refusal).
 */
export type BearerVerifier = (token: string, refused?: (why: BearerRefusal) => void) => Promise<AccessTokenClaims | undefined>;

export function bearerAccessTokenVerifier(
  deps: Pick<OAuthDeps, 'keys' | 'clock' | 'config' | 'resources'> & { revocations: Pick<RevocationsRepository, 'isRevoked'> },
): BearerVerifier {
  const keySource = keyServiceSource(deps.keys);
  /** The token's resource when it names a registered resource server (or the default audience). */
  async function registeredAudience(token: string): Promise<string | undefined> {
    let aud: unknown;
    try {
      aud = decodeJwt(token).aud;
    } catch {
      return undefined;
    }
    const resource = resourceOfAudience(aud, deps.config.ISSUER);
    if (resource === undefined) return undefined;
    return resource === deps.config.API_AUDIENCE || (await deps.resources.catalogue()).find(resource) ? resource : undefined;
  }
  return async (token, refused = () => {}) => {
    const audience = await registeredAudience(token);
    if (audience === undefined) {
      refused('unregistered_audience');
      return undefined;
    }
    // The verifier then checks exactly that audience, with every other rule unchanged.
    const verifier = accessTokenVerifier({ keySource, clock: deps.clock, config: deps.config, audience });
    const verification = await verifier.verify(token);
    if (!verification.ok) {
      if (verification.reason === 'invalid') {
        refused(verification.refusal);
        return undefined;
      }
      throw new ProblemError('service-unavailable', 'The token signing keys are temporarily unavailable.', {
        headers: { 'retry-after': '5' },
        cause: verification.cause,
      });
    }
    const { claims } = verification;
    if (!(await deps.revocations.isRevoked({ jti: claims.jti, clientId: claims.client_id, iat: claims.iat }))) return claims;
    refused('revoked');
    return undefined;
  };
}
