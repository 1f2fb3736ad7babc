// The token response of the grants that act for a user (authorization_code, refresh_token): an RFC 9068
// access token recorded under its grant (so revoking the grant revokes it by jti), an id_token when
// `openid` is in scope (OIDC Core 3.1.3.3), and the refresh token the grant decided on.
import { OAuthError } from '../../http/errors.js';
import type { Client } from '../../storage/clients-repository.js';
import type { UsersRepository } from '../../storage/users-repository.js';
import type { GrantStore } from '../refresh/grant-store.js';
import { formatScope } from '../scopes.js';
import type { AccessTokenIssuer } from '../tokens/access-tokens.js';
import type { IdTokenIssuer } from '../tokens/id-token.js';
import type { TokenResponse } from './grant.js';

export interface UserTokensDeps {
  accessTokens: AccessTokenIssuer;
  idTokens: IdTokenIssuer;
  grants: Pick<GrantStore, 'recordAccessToken'>;
  users: Pick<UsersRepository, 'findById'>;
}

export interface UserTokensInput {
  client: Client;
  grantId: string;
  userId: string;
  /** The scope of this response (narrowed on refresh), not necessarily the grant's. */
  scope: readonly string[];
  /** Epoch seconds of the login. */
  authTime: number;
  audience: string;
  nonce?: string | null;
  dpopJkt?: string | undefined;
  refreshToken?: string | undefined;
}

const grantGone = () => new OAuthError('invalid_grant', 'The authorization grant is no longer valid.');

async function issueIdToken(deps: UserTokensDeps, input: UserTokensInput, accessToken: string): Promise<string> {
  const user = await deps.users.findById(input.userId);
  if (!user) throw grantGone();
  return deps.idTokens.issue({ client: input.client, user, scope: input.scope, authTime: input.authTime, nonce: input.nonce ?? null, accessToken });
}

export async function issueUserTokens(deps: UserTokensDeps, input: UserTokensInput): Promise<TokenResponse> {
  const access = await deps.accessTokens.issue({
    sub: input.userId,
    clientId: input.client.id,
    scope: input.scope,
    authTime: input.authTime,
    audience: input.audience,
    ...(input.dpopJkt ? { cnfJkt: input.dpopJkt } : {}),
  });
  // A grant revoked while we were signing (code or refresh reuse) must not hand out a live token.
  if (!(await deps.grants.recordAccessToken(input.grantId, { jti: access.jti, expiresAt: access.expiresAt }))) throw grantGone();
  const idToken = input.scope.includes('openid') ? await issueIdToken(deps, input, access.token) : undefined;
  return {
    access_token: access.token,
    token_type: input.dpopJkt ? 'DPoP' : 'Bearer',
    expires_in: access.expiresIn,
    ...(input.refreshToken ? { refresh_token: input.refreshToken } : {}),
    ...(idToken ? { id_token: idToken } : {}),
    scope: formatScope(input.scope),
  };
}

/** RFC 8707: the audience bound at /authorize (or the API); a different `resource` at /token is invalid_target. */
export function tokenAudience(requested: string | undefined, bound: string | null, apiAudience: string): string {
  const audience = bound ?? apiAudience;
  if (requested !== undefined && requested !== audience) throw new OAuthError('invalid_target', 'The resource does not match the authorization.');
  return audience;
}
