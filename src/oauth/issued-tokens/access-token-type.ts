// Access tokens as seen by /revoke and /introspect: our own at+jwt, verified exactly as a bearer
// credential is (bearer-access-token.ts: pinned algorithm, typ, iss, aud, times, jti not revoked),
// and answered only to the client the token was issued to.
import type { RevocationsRepository } from '../../storage/repositories/revocations-repository.js';
import type { IntrospectionResult, TokenTypeHandler } from '../token-type-handler.js';
import type { TokenTypeDeps } from '../revocable-token-types.js';
import type { AccessTokenClaims, BearerVerifier } from './bearer-access-token.js';

function accessTokenType(deps: { verifyBearer: BearerVerifier; revocations: Pick<RevocationsRepository, 'revoke'> }): TokenTypeHandler {
  const { verifyBearer } = deps;

  /** The claims of a valid, unrevoked access token issued to `clientId`, or undefined for anything else. */
  async function verify(token: string, clientId: string): Promise<AccessTokenClaims | undefined> {
    const claims = await verifyBearer(token);
    return claims?.client_id === clientId ? claims : undefined;
  }

  return {
    hint: 'access_token',
    async revoke(token, client) {
      const claims = await verify(token, client.id);
      if (!claims) return false;
      await deps.revocations.revoke([{ jti: claims.jti, expiresAt: new Date(claims.exp * 1000) }]);
      return true;
    },
    async introspect(token, client): Promise<IntrospectionResult | undefined> {
      const claims = await verify(token, client.id);
      return claims && introspectionOf(claims);
    },
  };
}

/**
 * The RFC 7662 2.2 answer for a live access token, to its client and to its resource server alike. The
 * authentication context (auth_time, amr, acr: RFC 9068 2.2.1) is included when the token has it, so a
 * resource server doing its own step-up (RFC 9470) can read it (RFC 7662 2.2 allows further members).
 */
export function introspectionOf(claims: AccessTokenClaims): IntrospectionResult {
  const jkt = claims.cnf_jkt;
  return {
    active: true,
    scope: claims.scope.join(' '),
    client_id: claims.client_id,
    sub: claims.sub,
    exp: claims.exp,
    iat: claims.iat,
    iss: claims.iss,
    aud: claims.aud,
    token_type: jkt ? 'DPoP' : 'Bearer',
    jti: claims.jti,
    ...(claims.auth_time !== undefined ? { auth_time: claims.auth_time } : {}),
    ...(claims.amr !== undefined ? { amr: claims.amr } : {}),
    ...(claims.acr !== undefined ? { acr: claims.acr } : {}),
    ...(jkt ? { cnf: { jkt } } : {}),
    // RFC 8693 4.1: an exchanged token says who acts for its subject; its resource server learns it here too.
    ...(claims.act !== undefined ? { act: claims.act } : {}),
  };
}

export const accessTokens = (deps: TokenTypeDeps): TokenTypeHandler => accessTokenType({ verifyBearer: deps.bearerTokens, revocations: deps.revocations });
