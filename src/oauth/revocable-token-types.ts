// The token types /revoke and /introspect understand, one factory each (the refresh-token module adds its own).
import type { OAuthDeps } from './deps.js';
import type { TokenEndpointAuthMethod } from '../storage/repositories/clients-repository.js';
import type { TokenTypeHandler } from './token-type-handler.js';
import { accessTokens } from './issued-tokens/access-token-type.js';
import { refreshTokenHandler } from './refresh/refresh-token-type.js';

/** What a token type is built from (src/services.ts builds each once). */
export type TokenTypeDeps = Pick<OAuthDeps, 'config' | 'bearerTokens' | 'revocations' | 'refreshTokens'>;

export type TokenTypeFactory = (deps: TokenTypeDeps) => TokenTypeHandler;

export const tokenTypeFactories: readonly TokenTypeFactory[] = [accessTokens, refreshTokenHandler];

/** RFC 7009 2.1: public clients may revoke their own tokens, identified by client_id. */
export const REVOCATION_AUTH_METHODS: readonly TokenEndpointAuthMethod[] = ['client_secret_basic', 'client_secret_post', 'private_key_jwt', 'none'];
/** RFC 7662 2.1 requires authorisation to introspect; a public client has no credential, so it may not. */
export const INTROSPECTION_AUTH_METHODS: readonly TokenEndpointAuthMethod[] = ['client_secret_basic', 'client_secret_post', 'private_key_jwt'];

/** The hint (RFC 7009 2.1, RFC 7662 2.1) only changes the order handlers are asked; unknown hints are ignored. */
export function inHintOrder(handlers: readonly TokenTypeHandler[], hint: string | undefined): TokenTypeHandler[] {
  return [...handlers].sort((a, b) => Number(b.hint === hint) - Number(a.hint === hint));
}
