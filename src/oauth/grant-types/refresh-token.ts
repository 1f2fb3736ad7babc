// RFC 6749 6 with rotation on every use (RFC 9700 4.14.2). The optional scope may only narrow (6: "MUST
// NOT include any scope not originally granted"); a narrowed scope shapes this response only — the grant
// keeps its scope, so a later refresh without `scope` gets all of it back. What is issued is further cut
// to the scopes the client is registered for *now* (a scope removed from the client is not refreshed).
// Presenting a rotated or revoked token revokes the family (SecurityEventError → invalid_grant, logged with
// the family id). A DPoP-bound token (RFC 9449 5) needs a proof of its key — without one, or with another
// key, invalid_grant, and the token stays as it was — and what it yields is bound to that key again
// (token_type DPoP, cnf.jkt). amr/acr/auth_time are those of the original sign-in, kept on the grant.
import { OAuthError } from '../../http/errors.js';
import type { Rotation, RefreshTokens } from '../refresh/index.js';
import { SecurityEventError } from '../refresh/security-events.js';
import { parseScope } from '../../scopes.js';
import type { Grant, TokenResponse } from './grant-type.js';
import type { GrantDeps } from './index.js';
import { grantGone, refuseUnknownResource, signUserTokens, userTokenAudience, type UserTokensDeps } from '../issued-tokens/user-token-response.js';
import type { ResourceRegistry } from '../resources/registry.js';
import { offlineAudienceMayRefuse } from '../resources/audience.js';
import { acrOf } from '../issued-tokens/authentication-context.js';

function refusal(rotation: Extract<Rotation, { kind: 'refused' }>, clientId: string): OAuthError {
  switch (rotation.reason) {
    case 'reused':
      return new SecurityEventError(
        { type: 'refresh_token_reuse', familyId: rotation.grantId!, clientId },
        'The refresh token was already used; its whole family is revoked.',
      );
    case 'dpop_key':
      return new SecurityEventError(
        { type: 'dpop_binding_mismatch', familyId: rotation.grantId!, clientId },
        'The refresh token is DPoP-bound; present a DPoP proof of the key it is bound to.',
      );
    case 'wider_scope':
      return new OAuthError('invalid_scope', 'The requested scope exceeds the scope originally granted.');
    default:
      return new OAuthError('invalid_grant', 'The refresh token is invalid, expired, revoked, or was issued to another client.');
  }
}

function refreshTokenGrant(deps: {
  refresh: Pick<RefreshTokens, 'rotate' | 'rememberSuccessor' | 'revokeFamily' | 'findLive'>;
  tokens: UserTokensDeps;
  resources: Pick<ResourceRegistry, 'catalogue'>;
  fallbackAudience: string;
  accessTokenTtl: number;
}): Grant {
  return {
    type: 'refresh_token',
    parameters: ['refresh_token', 'scope', 'resource'],
    async handle({ client, params, dpopJkt }) {
      const token = params.refresh_token;
      if (token === undefined || token === '') throw new OAuthError('invalid_request', 'refresh_token is required.');
      const requested = parseScope(params.scope);
      // The client's current registration decides: a scope it is no longer allowed is not issued.
      const stillAllowed = (scope: string) => client.scopes.includes(scope);
      if (requested.length > 0 && !requested.some(stillAllowed)) {
        throw new OAuthError('invalid_scope', 'None of the requested scopes is allowed for this client any more.');
      }
      // Refuse a wrong `resource` (or scopes of several resources without one) before rotating: a refused
      // request must not burn the client's token. Rotation below decides again on what it actually read.
      // Reading the grant first costs a statement; it is skipped when no grant of this client can be refused
      // (no `resource`, and the catalogue rules a refusal out), so a rotation is one statement.
      await refuseUnknownResource(deps.resources, params.resource);
      if (params.resource !== undefined || offlineAudienceMayRefuse(await deps.resources.catalogue(), client.scopes)) {
        const live = await deps.refresh.findLive(token);
        if (live && live.grant.clientId === client.id) {
          const scope = (requested.length > 0 ? requested : live.grant.scope).filter(stillAllowed);
          if (scope.length > 0) await userTokenAudience(deps, { scope, requested: params.resource, bound: live.grant.resource, client, offline: true });
        }
      }
      const accessToken = deps.tokens.accessTokens.prepare();
      const rotation = await deps.refresh.rotate({ token, clientId: client.id, scope: requested, accessToken, dpopJkt });
      if (rotation.kind === 'replayed') return JSON.parse(rotation.response) as TokenResponse;
      if (rotation.kind === 'refused') throw refusal(rotation, client.id);
      // A grant revoked while rotating (code or refresh reuse elsewhere) must not hand out a live token.
      if (!rotation.recorded) throw grantGone();
      const { grant } = rotation;
      const scope = (requested.length > 0 ? requested : grant.scope).filter(stillAllowed);
      if (scope.length === 0) {
        // Nothing of this grant may be issued to the client any more: the family has no use left.
        await deps.refresh.revokeFamily(grant.id);
        throw new OAuthError('invalid_grant', 'The client is no longer registered for any scope of this grant.');
      }
      // RFC 8707: one audience, its scopes only; resource servers without offline access are out of reach.
      const chosen = await userTokenAudience(deps, { scope, requested: params.resource, bound: grant.resource, client, offline: true });
      const response = await signUserTokens(deps.tokens, {
        client,
        user: rotation.user,
        scope: chosen.scope,
        authTime: Math.floor(grant.authTime.getTime() / 1000),
        // OIDC Core 12.2: the refreshed tokens describe the original sign-in, which the grant recorded.
        authentication: grant.amr && grant.amr.length > 0 ? { amr: grant.amr, acr: acrOf(grant.amr) } : undefined,
        audience: chosen.audience,
        server: chosen.server,
        lifetime: chosen.lifetime,
        accessToken,
        // The successor's binding: the proof's key, which rotation matched against the presented token's.
        dpopJkt: rotation.dpopJkt ?? undefined,
        refreshToken: rotation.refreshToken,
        // OIDC Core 12.2 again: the sid of the sign-in's session (Back-Channel Logout 2.1).
        sid: grant.sessionId,
      });
      await deps.refresh.rememberSuccessor(token, JSON.stringify(response));
      return response;
    },
  };
}

export const refreshToken = (deps: GrantDeps): Grant =>
  refreshTokenGrant({
    refresh: deps.refreshTokens,
    tokens: { accessTokens: deps.accessTokens, idTokens: deps.idTokens },
    resources: deps.resources,
    fallbackAudience: deps.config.API_AUDIENCE,
    accessTokenTtl: deps.config.ACCESS_TOKEN_TTL,
  });
