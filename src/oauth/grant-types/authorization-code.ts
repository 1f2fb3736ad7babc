// RFC 6749 4.1.3 with PKCE (RFC 7636 4.5-4.6): exchange a code for tokens. The cheap shape checks run
// first; then the code is consumed atomically for this client; then redirect_uri and the S256 verifier
// must match what /authorize bound. A second use of a code revokes every token issued from it (4.1.2).
// A code requested with dpop_jkt (RFC 9449 10) redeems only with a proof of that key (else invalid_grant,
// the code left unspent); the refresh token of a DPoP exchange is bound to the proof's key (RFC 9449 5).
import type { AuthenticationLookup } from '../issued-tokens/authentication-context.js';
import { randomToken, sha256 } from '../../crypto/random.js';
import { OAuthError } from '../../http/errors.js';
import type { Client } from '../../storage/repositories/clients-repository.js';
import type { AuthorizationCodeRedeemer, Redemption, RedemptionIssue, StoredCode } from '../codes/index.js';
import { isWellFormedVerifier, verifierMatches } from '../codes/pkce.js';
import type { GrantsRepository } from '../../storage/repositories/grants-repository.js';
import { REFRESH_TOKEN_BYTES } from '../refresh/index.js';
import { SecurityEventError } from '../refresh/security-events.js';
import type { Grant } from './grant-type.js';
import type { GrantDeps } from './index.js';
import { refuseUnknownResource, signUserTokens, userTokenAudience, type UserTokensDeps } from '../issued-tokens/user-token-response.js';
import type { ResourceRegistry } from '../resources/registry.js';
import type { OperatorRolesRepository } from '../../storage/repositories/operator-roles-repository.js';
import { consoleScope, isConsoleClient } from '../console-access.js';

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

async function redeem(
  codes: AuthorizationCodeRedeemer,
  code: string,
  client: Client,
  issue: RedemptionIssue,
  verifier: string,
): Promise<Extract<Redemption, { ok: true }>> {
  // /token has authenticated every client except public ones, whose proof is the code_verifier.
  const result = await codes.redeem(code, client.id, issue, { authenticated: client.authMethod !== 'none', verifier });
  if (result.ok) return result;
  if (result.reason === 'dpop_jkt') {
    throw new SecurityEventError(
      { type: 'dpop_binding_mismatch', familyId: result.grantId, clientId: client.id },
      'The authorization code is bound to another DPoP key (dpop_jkt); present a proof of that key.',
    );
  }
  if (result.reason === 'reused') {
    throw new SecurityEventError(
      { type: 'authorization_code_reuse', familyId: result.grantId, clientId: client.id },
      'The authorization code was already used; tokens issued from it are revoked.',
    );
  }
  throw new OAuthError('invalid_grant', 'The authorization code is invalid, expired, or was issued to another client.', {
    log: { reason: 'code_invalid', client_id: client.id },
  });
}

/** redirect_uri (RFC 6749 4.1.3) and PKCE S256 (RFC 7636 4.6); a code without an S256 challenge never redeems. */
function checkBinding(code: StoredCode, redirectUri: string | undefined, verifier: string, clientId: string): void {
  if (redirectUri !== code.redirectUri) {
    throw new OAuthError('invalid_grant', 'redirect_uri does not match the authorization request.', {
      log: { reason: 'redirect_uri_mismatch', client_id: clientId, presented_redirect_uri: redirectUri ?? '(none)', registered_redirect_uri: code.redirectUri },
    });
  }
  if (!S256_CHALLENGE.test(code.codeChallenge) || !verifierMatches(verifier, code.codeChallenge)) {
    throw new OAuthError('invalid_grant', 'code_verifier does not match the code_challenge.', { log: { reason: 'pkce_mismatch', client_id: clientId } });
  }
}

function authorizationCodeGrant(deps: {
  codes: AuthorizationCodeRedeemer;
  grants: Pick<GrantsRepository, 'revoke'>;
  tokens: UserTokensDeps;
  resources: Pick<ResourceRegistry, 'catalogue'>;
  fallbackAudience: string;
  accessTokenTtl: number;
  /** amr/acr of the sign-in a code came from (authentication-context.ts). */
  authentications?: AuthenticationLookup;
  /** Operators of the admin console: what a console code may turn into (../console-access.ts). */
  operatorRoles?: Pick<OperatorRolesRepository, 'find'>;
}): Grant {
  return {
    type: 'authorization_code',
    parameters: ['code', 'redirect_uri', 'code_verifier', 'resource'],
    async handle({ client, params, dpopJkt }) {
      const codeValue = required(params.code, 'code');
      const verifier = wellFormedVerifier(params.code_verifier);
      await refuseUnknownResource(deps.resources, params.resource);
      // The refresh token is minted up front; the redemption stores it only when the code's scope calls
      // for one (offline_access, or plain OAuth: docs/token-formats.md) — see storage/authorization-codes-repository.ts.
      // The console never holds a refresh token, even if its registration were changed: its admin scopes are
      // decided at each code exchange, from the operator role and the sign-in's acr of that moment.
      const refreshToken = client.grantTypes.includes('refresh_token') && !isConsoleClient(client) ? randomToken(REFRESH_TOKEN_BYTES) : undefined;
      const accessToken = deps.tokens.accessTokens.prepare();
      const { code, user, refreshIssued } = await redeem(
        deps.codes,
        codeValue,
        client,
        {
          accessToken,
          ...(refreshToken ? { refreshTokenHash: sha256(refreshToken) } : {}),
          dpopJkt,
        },
        verifier,
      );
      try {
        checkBinding(code, params.redirect_uri, verifier, client.id);
        const authentication = code.sessionId ? await deps.authentications?.find(code.sessionId, code.authTime) : undefined;
        const granted = isConsoleClient(client)
          ? consoleScope(code.scope, user ? await deps.operatorRoles?.find(user.id) : undefined, authentication?.acr)
          : code.scope;
        const { audience, scope, lifetime, server } = await userTokenAudience(deps, {
          scope: granted,
          requested: params.resource,
          bound: code.resource,
          client,
        });
        return await signUserTokens(deps.tokens, {
          client,
          user,
          scope,
          authTime: Math.floor(code.authTime.getTime() / 1000),
          audience,
          server,
          lifetime,
          accessToken,
          nonce: code.nonce,
          dpopJkt,
          refreshToken: refreshIssued ? refreshToken : undefined,
          authentication,
          sid: code.sessionId,
        });
      } catch (error) {
        // The code is spent either way; its grant must not outlive a failed exchange.
        await deps.grants.revoke({ grantId: code.grantId });
        throw error;
      }
    },
  };
}

export const authorizationCode = (deps: GrantDeps): Grant =>
  authorizationCodeGrant({
    codes: deps.codes,
    grants: deps.grantRecords,
    tokens: { accessTokens: deps.accessTokens, idTokens: deps.idTokens },
    resources: deps.resources,
    fallbackAudience: deps.config.API_AUDIENCE,
    accessTokenTtl: deps.config.ACCESS_TOKEN_TTL,
    authentications: deps.authentications,
    operatorRoles: deps.operatorRoles,
  });
