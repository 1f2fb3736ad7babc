// RFC 6749 4.1.3 with PKCE (RFC 7636 4.5-4.6): exchange a code for tokens. The cheap shape checks run
// first; then the code is consumed atomically for this client; then redirect_uri and the S256 verifier
// must match what /authorize bound. A second use of a code revokes every token issued from it (4.1.2).
import type { Core } from '../../core.js';
import { OAuthError } from '../../http/errors.js';
import type { Client } from '../../storage/clients-repository.js';
import { usersRepository } from '../../storage/users-repository.js';
import { authorizationCodes, type AuthorizationCodeRedeemer, type StoredCode } from '../codes/index.js';
import { isWellFormedVerifier, verifierMatches } from '../codes/pkce.js';
import { grantStore, type GrantStore } from '../refresh/grant-store.js';
import { refreshTokens, type RefreshTokens } from '../refresh/index.js';
import { SecurityEventError } from '../refresh/security-events.js';
import { accessTokenIssuer } from '../tokens/access-tokens.js';
import { idTokenIssuer } from '../tokens/id-token.js';
import type { Grant } from './grant.js';
import { issueUserTokens, tokenAudience, type UserTokensDeps } from './user-tokens.js';

const S256_CHALLENGE = /^[A-Za-z0-9_-]{43}$/;

function required(value: string | undefined, name: string): string {
  if (value === undefined || value === '') throw new OAuthError('invalid_request', `${name} is required.`);
  return value;
}

/** RFC 7636 4.1: 43-128 unreserved characters; a missing verifier is a PKCE failure, not a shape error. */
function wellFormedVerifier(value: string | undefined): string {
  if (value === undefined || !isWellFormedVerifier(value)) throw new OAuthError('invalid_grant', 'code_verifier must be 43-128 characters of [A-Za-z0-9-._~].');
  return value;
}

async function redeem(codes: AuthorizationCodeRedeemer, code: string, client: Client): Promise<StoredCode> {
  const result = await codes.redeem(code, client.id);
  if (result.ok) return result.code;
  if (result.reason === 'reused') {
    throw new SecurityEventError(
      { type: 'authorization_code_reuse', familyId: result.grantId, clientId: client.id },
      'The authorization code was already used; tokens issued from it are revoked.',
    );
  }
  throw new OAuthError('invalid_grant', 'The authorization code is invalid, expired, or was issued to another client.');
}

/** redirect_uri (RFC 6749 4.1.3) and PKCE S256 (RFC 7636 4.6); a code without an S256 challenge never redeems. */
function checkBinding(code: StoredCode, redirectUri: string | undefined, verifier: string): void {
  if (redirectUri !== code.redirectUri) throw new OAuthError('invalid_grant', 'redirect_uri does not match the authorization request.');
  if (!S256_CHALLENGE.test(code.codeChallenge) || !verifierMatches(verifier, code.codeChallenge)) {
    throw new OAuthError('invalid_grant', 'code_verifier does not match the code_challenge.');
  }
}

/** DESIGN.md §1: with offline_access (OIDC), or for plain OAuth, when the client is registered for refresh_token. */
const wantsRefreshToken = (client: Client, scope: readonly string[]): boolean =>
  client.grantTypes.includes('refresh_token') && (scope.includes('offline_access') || !scope.includes('openid'));

export function authorizationCodeGrant(deps: {
  codes: AuthorizationCodeRedeemer;
  refresh: Pick<RefreshTokens, 'issueFirst'>;
  grants: Pick<GrantStore, 'revoke' | 'recordAccessToken'>;
  tokens: Omit<UserTokensDeps, 'grants'>;
  apiAudience: string;
}): Grant {
  return {
    type: 'authorization_code',
    parameters: ['code', 'redirect_uri', 'code_verifier', 'resource'],
    async handle({ client, params, dpopJkt }) {
      const codeValue = required(params.code, 'code');
      const verifier = wellFormedVerifier(params.code_verifier);
      const code = await redeem(deps.codes, codeValue, client);
      try {
        checkBinding(code, params.redirect_uri, verifier);
        const audience = tokenAudience(params.resource, code.resource, deps.apiAudience);
        const refreshToken = wantsRefreshToken(client, code.scope) ? await deps.refresh.issueFirst(code.grantId) : undefined;
        return await issueUserTokens(
          { ...deps.tokens, grants: deps.grants },
          {
            client,
            grantId: code.grantId,
            userId: code.userId,
            scope: code.scope,
            authTime: Math.floor(code.authTime.getTime() / 1000),
            audience,
            nonce: code.nonce,
            dpopJkt,
            refreshToken,
          },
        );
      } catch (error) {
        // The code is spent either way; its grant must not outlive a failed exchange.
        await deps.grants.revoke(code.grantId);
        throw error;
      }
    },
  };
}

export const authorizationCode = (core: Core): Grant =>
  authorizationCodeGrant({
    codes: authorizationCodes(core),
    refresh: refreshTokens(core),
    grants: grantStore(core.db, core.clock),
    tokens: { accessTokens: accessTokenIssuer(core), idTokens: idTokenIssuer(core), users: usersRepository(core.db, core.clock) },
    apiAudience: core.config.API_AUDIENCE,
  });
