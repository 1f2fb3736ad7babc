// OIDC Core 5.3 UserInfo, GET and POST. The access token comes from the Authorization header (RFC 6750 2.1)
// or, for POST, the form body (2.2) — never the query (RFC 9700 4.3.2) and never both. Errors follow
// RFC 6750 3: no credentials → 401 with a bare `Bearer` challenge; a bad token → 401 invalid_token; a token
// without `openid` or without a user (client_credentials) → 403 insufficient_scope; a token whose audience does
// not name the issuer's /userinfo (one issued for a resource server alone) → 401 invalid_token (RFC 8707,
// RFC 9700 2.3: a token is used only where it was issued for; docs/security/tokens-and-operator-views.md). A
// DPoP-bound token needs the DPoP scheme and a proof (RFC 9449 7), like at the resource API.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { OAuthDeps } from './deps.js';
import { OAuthError } from '../http/errors.js';
import type { UsersRepository } from '../storage/repositories/users-repository.js';
import type { AccessTokenClaims, BearerRefusal, BearerVerifier } from './issued-tokens/bearer-access-token.js';
import { userClaims } from './issued-tokens/user-claims.js';
import { namesUserinfo } from './issued-tokens/token-audience.js';
import { mappedClaims } from './resources/claims.js';
import type { ResourceCatalogue } from './resources/registry.js';
import { authorizationCredentials, dpopFailureHeaders, dpopRefusal, possessionFailure, type PresentedToken } from '../tokens/dpop/possession.js';
import type { DpopDeps } from '../tokens/dpop/proof.js';
import { resourceMetadataChallenge } from '../resource-server/protected-resource-metadata.js';
import { userinfoMetadataUrl } from './resources/metadata-routes.js';

const challenge = (attributes = '') => ({ 'www-authenticate': attributes ? `Bearer ${attributes}` : 'Bearer' });

// Each refusal's log line names why (docs/security/token-verification.md); the caller sees one sentence.
const refusalLog = (reason: string, why: string) => ({ reason, token_refusal: why });
const noToken = () => new OAuthError('invalid_request', 'An access token is required.', { status: 401, headers: challenge() });
const invalidToken = (why: string) =>
  new OAuthError('invalid_token', 'The access token is invalid, expired or revoked.', {
    headers: challenge('error="invalid_token", error_description="The access token is invalid, expired or revoked."'),
    log: refusalLog('invalid_token', why),
  });
const twoTokens = () =>
  new OAuthError('invalid_request', 'Send the access token in one place only.', {
    headers: challenge('error="invalid_request"'),
    log: refusalLog('invalid_request', 'two_tokens'),
  });
const notForUserinfo = () =>
  new OAuthError('invalid_token', 'The access token was not issued for the UserInfo endpoint.', {
    headers: challenge('error="invalid_token", error_description="The access token was not issued for the UserInfo endpoint."'),
    log: refusalLog('invalid_token', 'audience'),
  });
const insufficientScope = () =>
  new OAuthError('insufficient_scope', 'The access token does not carry the openid scope of a user.', {
    headers: challenge('error="insufficient_scope", scope="openid"'),
    log: refusalLog('insufficient_scope', 'scope'),
  });

/**
 * RFC 6750 2.1 / 2.2: the one access token of the request, or undefined when none was sent. The header
 * may also use the DPoP scheme (RFC 9449 7.1); a form body token is a bearer token.
 */
function presentedToken(request: FastifyRequest): PresentedToken | undefined {
  const credentials = authorizationCredentials(request.headers.authorization);
  if (credentials === 'malformed') throw invalidToken('malformed');
  const fromHeader = credentials === 'absent' ? undefined : credentials;
  const body = request.body as Record<string, unknown> | undefined;
  const fromBody = request.method === 'POST' && body && typeof body === 'object' ? body.access_token : undefined;
  if (fromBody !== undefined && typeof fromBody !== 'string') throw invalidToken('malformed');
  if (fromHeader !== undefined && fromBody !== undefined) throw twoTokens();
  return fromHeader ?? (fromBody === undefined ? undefined : { scheme: 'Bearer', token: fromBody });
}

async function authorize(
  request: FastifyRequest,
  verify: BearerVerifier,
  dpop: DpopDeps & { url: string; requireNonce: boolean },
  issuer: string,
): Promise<AccessTokenClaims> {
  const presented = presentedToken(request);
  if (presented === undefined || presented.token === '') throw noToken();
  let why: BearerRefusal = 'invalid';
  const claims = await verify(presented.token, (reason) => (why = reason));
  if (!claims) throw invalidToken(why);
  const failure = await possessionFailure({ ...presented, method: request.method, url: dpop.url, dpopHeader: request.headers.dpop }, claims.cnf_jkt, dpop);
  if (failure) throw new OAuthError(failure.error, failure.description, { status: 401, headers: dpopFailureHeaders(failure), log: dpopRefusal(failure) });
  // A user token carries auth_time (access-tokens.ts); client_credentials tokens have no user.
  if (claims.auth_time === undefined || !claims.scope.includes('openid')) throw insufficientScope();
  // The user-info-audience rule: the token must have been issued for /userinfo too, not only for a resource.
  if (!namesUserinfo(claims.aud, issuer)) throw notForUserinfo();
  return claims;
}

async function claimsOf(claims: AccessTokenClaims, users: Pick<UsersRepository, 'findById'>, catalogue: ResourceCatalogue): Promise<Record<string, unknown>> {
  const user = await users.findById(claims.sub);
  if (!user) throw invalidToken('unknown_user');
  // The attributes the token's scopes map into the id_token are also released here (docs/resource-servers.md).
  const definitions = claims.scope.flatMap((s) => catalogue.ownerOf(s)?.scopes.filter((x) => x.name === s) ?? []);
  return { ...mappedClaims(definitions, claims.scope, 'id_token', user.attributes), ...userClaims(user, claims.scope) };
}

export function userinfoEndpoint(app: FastifyInstance, services: Pick<OAuthDeps, 'config' | 'bearerTokens' | 'users' | 'dpop' | 'resources'>): void {
  const { config, bearerTokens: verify, users } = services;
  const dpop = { ...services.dpop, url: `${config.ISSUER}/userinfo`, requireNonce: config.DPOP_NONCE_REQUIRED === 'all' };
  const handler = async (request: FastifyRequest) =>
    claimsOf(await authorize(request, verify, dpop, config.ISSUER), users, await services.resources.catalogue());
  const options = {
    config: { face: 'oauth' as const },
    bodyLimit: config.FORM_BODY_LIMIT,
    // RFC 9728 5.1: every 401/403 challenge names /userinfo's protected-resource metadata.
    onSend: resourceMetadataChallenge(userinfoMetadataUrl(config.ISSUER)),
    // The released claims vary with scope (OIDC Core 5.3.2); `sub` is always there.
    schema: { response: { 200: { type: 'object', required: ['sub'], properties: { sub: { type: 'string' } }, additionalProperties: true } } },
  };
  app.get('/userinfo', options, async (request, reply) => reply.header('cache-control', 'no-store').send(await handler(request)));
  app.post('/userinfo', options, async (request, reply) => reply.header('cache-control', 'no-store').send(await handler(request)));
}
