// Refresh tokens as seen by /revoke (RFC 7009 2.1: revoking a refresh token SHOULD also invalidate the
// access tokens of the same grant — here the whole family goes) and /introspect (RFC 7662).
import type { IntrospectionResult, TokenTypeHandler } from '../token-type-handler.js';
import { formatScope } from '../../scopes.js';
import type { TokenTypeDeps } from '../revocable-token-types.js';
import type { RefreshTokens } from './index.js';

const seconds = (date: Date) => Math.floor(date.getTime() / 1000);

function refreshTokenType(deps: { refresh: Pick<RefreshTokens, 'find' | 'findLive' | 'revokeFamily'>; issuer: string }): TokenTypeHandler {
  return {
    hint: 'refresh_token',
    async revoke(token, client) {
      const record = await deps.refresh.find(token);
      if (!record) return false;
      // Another client's token is recognised but left alone (RFC 7009 2.1: the token must belong to the caller).
      if (record.grant.clientId === client.id) await deps.refresh.revokeFamily(record.grant.id);
      return true;
    },
    async introspect(token, client): Promise<IntrospectionResult | undefined> {
      const record = await deps.refresh.findLive(token);
      if (!record || record.grant.clientId !== client.id) return undefined;
      const expiresAt = Math.min(record.idleExpiresAt.getTime(), record.grant.expiresAt.getTime());
      return {
        active: true,
        scope: formatScope(record.grant.scope),
        client_id: record.grant.clientId,
        sub: record.grant.userId,
        exp: seconds(new Date(expiresAt)),
        iat: seconds(record.createdAt),
        iss: deps.issuer,
        // A refresh token's audience is the authorization server itself (docs/token-formats.md).
        aud: deps.issuer,
        token_type: 'refresh_token',
        auth_time: seconds(record.grant.authTime),
      };
    },
  };
}

export const refreshTokenHandler = (deps: TokenTypeDeps): TokenTypeHandler => refreshTokenType({ refresh: deps.refreshTokens, issuer: deps.config.ISSUER });
