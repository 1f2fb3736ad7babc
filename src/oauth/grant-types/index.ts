// The grant registry: every grant /token offers, one factory each. Discovery's grant_types_supported is
// read from this same list, so what is advertised is what the endpoint does.
import type { OAuthDeps } from '../deps.js';
import type { Grant } from './grant-type.js';
import { clientCredentials } from './client-credentials.js';
import { authorizationCode } from './authorization-code.js';
import { refreshToken } from './refresh-token.js';
import { deviceCode } from './device-code.js';
import { tokenExchange } from './token-exchange.js';

/** What a grant is built from (src/services.ts builds each once). */
export type GrantDeps = Pick<
  OAuthDeps,
  | 'config'
  | 'accessTokens'
  | 'idTokens'
  | 'codes'
  | 'refreshTokens'
  | 'grantRecords'
  | 'resources'
  | 'authentications'
  | 'operatorRoles'
  | 'deviceAuthorizations'
  | 'clock'
  | 'bearerTokens'
  | 'delegations'
  | 'store'
  | 'users'
  | 'audit'
  | 'clients'
>;

export type GrantFactory = (deps: GrantDeps) => Grant;

export const grantFactories: readonly GrantFactory[] = [clientCredentials, authorizationCode, refreshToken, deviceCode, tokenExchange];
