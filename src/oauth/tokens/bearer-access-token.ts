// Our own access tokens presented to the authorization server's endpoints (/userinfo, /revoke,
// /introspect): verified by the one RFC 9068 verifier the resource API uses (src/api/auth: pinned
// algorithm, typ, no crit, iss, aud, times, lifetime, claim types, cnf), then the revocation list. Anything
// invalid — including refresh tokens and id_tokens — is simply `undefined` here: each endpoint answers in
// its own format. Unavailable keys still throw (503), since the token is not at fault.
import type { Core } from '../../core.js';
import { ProblemError } from '../../http/errors.js';
import type { RevocationsRepository } from '../../storage/revocations-repository.js';
import { inProcessKeySource } from '../../api/auth/index.js';
import { accessTokenVerifier, type AccessTokenClaims } from '../../api/auth/verify-access-token.js';

export type { AccessTokenClaims };

export type BearerVerifier = (token: string) => Promise<AccessTokenClaims | undefined>;

export function bearerAccessTokenVerifier(
  deps: Pick<Core, 'keys' | 'clock' | 'config'> & { revocations: Pick<RevocationsRepository, 'isRevoked'> },
): BearerVerifier {
  const verifier = accessTokenVerifier({ keySource: inProcessKeySource(deps), clock: deps.clock, config: deps.config });
  return async (token) => {
    let claims: AccessTokenClaims;
    try {
      claims = await verifier.verify(token);
    } catch (error) {
      if (error instanceof ProblemError && error.status === 401) return undefined;
      throw error;
    }
    return (await deps.revocations.isRevoked({ jti: claims.jti, clientId: claims.client_id, iat: claims.iat })) ? undefined : claims;
  };
}
