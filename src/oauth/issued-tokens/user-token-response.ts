// The token response of the grants that act for a user (authorization_code, refresh_token): an RFC 9068
// access token, an id_token when `openid` is in scope (OIDC Core 3.1.3.3), and the refresh token the grant
// decided on. The access token's jti is recorded under its grant by the grant's one redemption or rotation
// statement *before* it is signed (so revoking the grant revokes it by jti); here it is only signed.
import { OAuthError } from '../../http/errors.js';
import type { Client } from '../../storage/repositories/clients-repository.js';
import type { UserRecord } from '../../storage/repositories/users-repository.js';
import type { ResourceServer } from '../../storage/repositories/resource-servers-repository.js';
import { mappedClaims } from '../resources/claims.js';
import { formatScope } from '../../scopes.js';
import { accessTokenLifetime, chooseAudience } from '../resources/audience.js';
import type { ResourceRegistry } from '../resources/registry.js';
import type { AccessTokenIssuer, PreparedAccessToken } from './access-tokens.js';
import type { Authentication, IdTokenIssuer } from './id-token.js';
import type { TokenResponse } from '../grant-types/grant-type.js';

export interface UserTokensDeps {
  accessTokens: AccessTokenIssuer;
  idTokens: IdTokenIssuer;
}

export interface UserTokensInput {
  client: Client;
  /** The user, read in the same statement that redeemed or rotated; null when the account is gone. */
  user: UserRecord | null;
  /** The scope of this response (narrowed on refresh), not necessarily the grant's. */
  scope: readonly string[];
  /** Epoch seconds of the login. */
  authTime: number;
  audience: string;
  /** The audience's registration: its scopes' claim mappings (resources/claims.ts). */
  server?: ResourceServer | undefined;
  /** The audience's access-token lifetime (seconds). */
  lifetime?: number;
  /** The jti and lifetime already recorded under the grant. */
  accessToken: PreparedAccessToken;
  nonce?: string | null;
  dpopJkt?: string | undefined;
  refreshToken?: string | undefined;
  /** amr and acr of the sign-in the grant came from, when it recorded them (docs/second-factors.md). */
  authentication?: Authentication | undefined;
  /** The sid of the browser session of the sign-in: the id_token's. */
  sid?: string | null | undefined;
}

export const grantGone = () => new OAuthError('invalid_grant', 'The authorization grant is no longer valid.');

export async function signUserTokens(deps: UserTokensDeps, input: UserTokensInput): Promise<TokenResponse> {
  const { user } = input;
  if (!user) throw grantGone();
  // The user attributes the granted scopes of this audience map into each token (docs/resource-servers.md).
  const definitions = input.server?.scopes ?? [];
  const access = await deps.accessTokens.issue(
    {
      sub: user.id,
      clientId: input.client.id,
      scope: input.scope,
      authTime: input.authTime,
      audience: input.audience,
      ...(input.lifetime !== undefined ? { lifetime: input.lifetime } : {}),
      ...(input.dpopJkt ? { cnfJkt: input.dpopJkt } : {}),
      authentication: input.authentication,
      extraClaims: mappedClaims(definitions, input.scope, 'access_token', user.attributes),
    },
    input.accessToken,
  );
  const idToken = input.scope.includes('openid')
    ? await deps.idTokens.issue({
        client: input.client,
        user,
        scope: input.scope,
        authTime: input.authTime,
        nonce: input.nonce ?? null,
        accessToken: access.token,
        authentication: input.authentication,
        extraClaims: mappedClaims(definitions, input.scope, 'id_token', user.attributes),
        sid: input.sid,
      })
    : undefined;
  return {
    access_token: access.token,
    token_type: input.dpopJkt ? 'DPoP' : 'Bearer',
    expires_in: access.expiresIn,
    ...(input.refreshToken ? { refresh_token: input.refreshToken } : {}),
    ...(idToken ? { id_token: idToken } : {}),
    scope: formatScope(input.scope),
  };
}

/** RFC 8707: the one audience of this response and its scope (resources/audience.ts), with its lifetime. */
export async function userTokenAudience(
  deps: { resources: Pick<ResourceRegistry, 'catalogue'>; fallbackAudience: string; accessTokenTtl: number },
  input: { scope: readonly string[]; requested: string | undefined; bound: string | null; client: Client; offline?: boolean },
): Promise<{ audience: string; scope: string[]; lifetime: number; server: ResourceServer | undefined }> {
  const catalogue = await deps.resources.catalogue();
  const chosen = chooseAudience({
    catalogue,
    scope: input.scope,
    requested: input.requested,
    bound: input.bound,
    defaultResource: input.client.defaultResource,
    fallbackAudience: deps.fallbackAudience,
    ...(input.offline ? { offline: true } : {}),
  });
  return { audience: chosen.audience, scope: chosen.scope, lifetime: accessTokenLifetime(chosen.server, deps.accessTokenTtl), server: chosen.server };
}

/** A `resource` that names no registered resource server, refused before a code or refresh token is spent. */
export async function refuseUnknownResource(resources: Pick<ResourceRegistry, 'catalogue'>, requested: string | undefined): Promise<void> {
  if (requested === undefined) return;
  if (!(await resources.catalogue()).find(requested)) throw new OAuthError('invalid_target', 'The resource is not a registered resource server.');
}
