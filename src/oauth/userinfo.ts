// OIDC Core 5.3 UserInfo, GET and POST. The access token comes from the Authorization header (RFC 6750 2.1)
// or, for POST, the form body (2.2) — never the query (RFC 9700 4.3.2) and never both. Errors follow
// RFC 6750 3: no credentials → 401 with a bare `Bearer` challenge; a bad token → 401 invalid_token; a token
// without `openid` or without a user (client_credentials) → 403 insufficient_scope.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Core } from '../core.js';
import { OAuthError } from '../http/errors.js';
import { revocationsRepository } from '../storage/revocations-repository.js';
import { usersRepository, type UsersRepository } from '../storage/users-repository.js';
import { parseScope } from './scopes.js';
import { bearerAccessTokenVerifier, type AccessTokenClaims, type BearerVerifier } from './tokens/bearer-access-token.js';
import { userClaims } from './tokens/user-claims.js';

const challenge = (attributes = '') => ({ 'www-authenticate': attributes ? `Bearer ${attributes}` : 'Bearer' });

const noToken = () => new OAuthError('invalid_request', 'An access token is required.', { status: 401, headers: challenge() });
const invalidToken = () =>
  new OAuthError('invalid_token', 'The access token is invalid, expired or revoked.', {
    headers: challenge('error="invalid_token", error_description="The access token is invalid, expired or revoked."'),
  });
const twoTokens = () =>
  new OAuthError('invalid_request', 'Send the access token in one place only.', { headers: challenge('error="invalid_request"') });
const insufficientScope = () =>
  new OAuthError('insufficient_scope', 'The access token does not carry the openid scope of a user.', {
    headers: challenge('error="insufficient_scope", scope="openid"'),
  });

/** RFC 6750 2.1 / 2.2: the one bearer token of the request, or undefined when none was sent. */
function presentedToken(request: FastifyRequest): string | undefined {
  const header = request.headers.authorization;
  const fromHeader = header === undefined ? undefined : /^Bearer +([A-Za-z0-9\-._~+/]+=*) *$/i.exec(header)?.[1];
  if (header !== undefined && fromHeader === undefined && /^Bearer\b/i.test(header)) throw invalidToken();
  const body = request.body as Record<string, unknown> | undefined;
  const fromBody = request.method === 'POST' && body && typeof body === 'object' ? body.access_token : undefined;
  if (fromBody !== undefined && typeof fromBody !== 'string') throw invalidToken();
  if (fromHeader !== undefined && fromBody !== undefined) throw twoTokens();
  return fromHeader ?? fromBody;
}

async function authorize(request: FastifyRequest, verify: BearerVerifier): Promise<AccessTokenClaims> {
  const token = presentedToken(request);
  if (token === undefined || token === '') throw noToken();
  const claims = await verify(token);
  // RFC 9449 7.1: a DPoP-bound token is not a bearer token; presented as one it is refused.
  if (!claims || claims.cnf !== undefined) throw invalidToken();
  // A user token carries auth_time (access-tokens.ts); client_credentials tokens have no user.
  if (claims.auth_time === undefined || !parseScope(claims.scope).includes('openid')) throw insufficientScope();
  return claims;
}

async function claimsOf(claims: AccessTokenClaims, users: Pick<UsersRepository, 'findById'>): Promise<Record<string, unknown>> {
  const user = await users.findById(claims.sub);
  if (!user) throw invalidToken();
  return userClaims(user, parseScope(claims.scope));
}

export function userinfoEndpoint(app: FastifyInstance, core: Core): void {
  const verify = bearerAccessTokenVerifier({ ...core, revocations: revocationsRepository(core.db, core.clock) });
  const users = usersRepository(core.db, core.clock);
  const handler = async (request: FastifyRequest) => claimsOf(await authorize(request, verify), users);
  const options = {
    config: { face: 'oauth' as const },
    bodyLimit: core.config.FORM_BODY_LIMIT,
    // The released claims vary with scope (OIDC Core 5.3.2); `sub` is always there.
    schema: { response: { 200: { type: 'object', required: ['sub'], properties: { sub: { type: 'string' } }, additionalProperties: true } } },
  };
  app.get('/userinfo', options, async (request, reply) => reply.header('cache-control', 'no-store').send(await handler(request)));
  app.post('/userinfo', options, async (request, reply) => reply.header('cache-control', 'no-store').send(await handler(request)));
}
