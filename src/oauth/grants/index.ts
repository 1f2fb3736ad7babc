// The grant registry: every grant /token offers, one factory each. Discovery's grant_types_supported is
// read from this same list, so what is advertised is what the endpoint does.
import type { Core } from '../../core.js';
import type { Grant } from './grant.js';
import { clientCredentials } from './client-credentials.js';
import { authorizationCode } from './authorization-code.js';
import { refreshToken } from './refresh-token.js';

export type GrantFactory = (core: Core) => Grant;

export const grantFactories: readonly GrantFactory[] = [
  clientCredentials,
  authorizationCode,
  refreshToken,
];

export const createGrants = (core: Core): Grant[] => grantFactories.map((create) => create(core));
