// OpenID Connect Discovery 1.0 §3 and RFC 8414 §2, one document at both well-known addresses. Every value
// comes from the policy objects the endpoints enforce (grant registry, client-auth methods, algorithms,
// scope catalogue), and an endpoint is listed only once its route is actually served.
import type { FastifyInstance } from 'fastify';
import type { OAuthDeps } from './deps.js';
import { SIGNING_ALGS } from '../crypto/keys.js';
import { TOKEN_ENDPOINT_AUTH_METHODS } from '../storage/repositories/clients-repository.js';
import { CLIENT_ASSERTION_ALGS } from './clients/client-keys.js';
import { RESPONSE_MODES } from './authorize/check-response-mode.js';
import { DPOP_ALGS } from '../tokens/dpop/proof.js';
import { JWKS_PATH } from './jwks.js';
import { ACR_VALUES_SUPPORTED } from './issued-tokens/authentication-context.js';
import { INTROSPECTION_AUTH_METHODS, REVOCATION_AUTH_METHODS } from './revocable-token-types.js';
import { claimNameProblem } from './resources/claims.js';
import type { ResourceCatalogue } from './resources/registry.js';

/** Endpoint metadata name → [method, path] of the route that serves it. */
const ENDPOINTS = {
  authorization_endpoint: ['GET', '/authorize'],
  token_endpoint: ['POST', '/token'],
  userinfo_endpoint: ['GET', '/userinfo'],
  jwks_uri: ['GET', JWKS_PATH],
  revocation_endpoint: ['POST', '/revoke'],
  introspection_endpoint: ['POST', '/introspect'],
  registration_endpoint: ['POST', '/register'],
  end_session_endpoint: ['GET', '/logout'],
  // RFC 8628 4.
  device_authorization_endpoint: ['POST', '/device_authorization'],
} as const;

/** OIDC Core 5.1 claims Gatehouse can release (id_token and userinfo). */
const CLAIMS_SUPPORTED = [
  'sub',
  'iss',
  'aud',
  'exp',
  'iat',
  'auth_time',
  'nonce',
  'azp',
  'at_hash',
  'amr',
  'acr',
  'sid',
  'name',
  'given_name',
  'family_name',
  'email',
  'email_verified',
  'phone_number',
  'phone_number_verified',
  'address',
];

/** Policies of /authorize (RFC 7636 S256 only; code flow only; RFC 9207 iss in responses). */
const AUTHORIZATION_POLICY = {
  response_types_supported: ['code'],
  response_modes_supported: RESPONSE_MODES,
  code_challenge_methods_supported: ['S256'],
  authorization_response_iss_parameter_supported: true,
  request_parameter_supported: false,
  request_uri_parameter_supported: false,
  // OIDC Core 3.1.2.1: acr_values (or an essential acr claim) naming ACR_MFA steps a session up.
  acr_values_supported: ACR_VALUES_SUPPORTED,
} as const;

function endpoints(app: FastifyInstance, issuer: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, [method, path]] of Object.entries(ENDPOINTS)) {
    if (app.hasRoute({ method, url: path })) out[name] = `${issuer}${path}`;
  }
  return out;
}

/** The id_token claims the public registered scopes map from user attributes. */
const idTokenClaimNames = (catalogue: ResourceCatalogue): string[] =>
  catalogue.servers
    .filter((s) => !s.operatorOnly)
    .flatMap((s) => s.scopes.flatMap((x) => (x.claims.id_token ?? []).filter((n) => claimNameProblem(n) === undefined)));

type DiscoveryServices = Pick<OAuthDeps, 'config' | 'grantTypes'>;

function discoveryDocument(
  app: FastifyInstance,
  services: DiscoveryServices,
  scopesSupported: readonly string[],
  /** Attributes registered scopes map into the id_token and /userinfo (docs/resource-servers.md, "Claims"). */
  mappedClaimNames: readonly string[] = [],
): Record<string, unknown> {
  const issuer = services.config.ISSUER;
  const assertionAlgs = [...CLIENT_ASSERTION_ALGS];
  return {
    issuer,
    ...endpoints(app, issuer),
    // OIDC scopes and the registered ones; operator-only scopes are not advertised.
    scopes_supported: [...scopesSupported],
    grant_types_supported: services.grantTypes.map((g) => g.type),
    ...AUTHORIZATION_POLICY,
    token_endpoint_auth_methods_supported: [...TOKEN_ENDPOINT_AUTH_METHODS],
    token_endpoint_auth_signing_alg_values_supported: assertionAlgs,
    revocation_endpoint_auth_methods_supported: [...REVOCATION_AUTH_METHODS],
    revocation_endpoint_auth_signing_alg_values_supported: assertionAlgs,
    introspection_endpoint_auth_methods_supported: [...INTROSPECTION_AUTH_METHODS],
    introspection_endpoint_auth_signing_alg_values_supported: assertionAlgs,
    id_token_signing_alg_values_supported: [...SIGNING_ALGS],
    subject_types_supported: ['public'],
    claims_supported: [...new Set([...CLAIMS_SUPPORTED, ...mappedClaimNames])],
    // OIDC Core 5.5, as far as docs/claims-parameter.md says (authorize/check-claims.ts).
    claims_parameter_supported: true,
    dpop_signing_alg_values_supported: [...DPOP_ALGS],
    // OpenID Connect Back-Channel Logout 1.0, 2.1: logout tokens to clients' backchannel_logout_uri, with sid
    // (docs/backchannel-logout.md).
    backchannel_logout_supported: true,
    backchannel_logout_session_supported: true,
    // draft-ietf-oauth-client-id-metadata-document 4: an https URL is accepted as client_id (docs/agents.md).
    ...(services.config.CIMD === 'on' ? { client_id_metadata_document_supported: true } : {}),
  };
}

export function discoveryEndpoints(app: FastifyInstance, services: DiscoveryServices & Pick<OAuthDeps, 'resources'>): void {
  // Built when the registry changed (or first asked, when every face has registered its routes).
  let built: { catalogue: unknown; document: string } | undefined;
  const handler = async (_request: unknown, reply: { header(n: string, v: string): unknown; type(t: string): unknown }) => {
    const catalogue = await services.resources.catalogue();
    const current =
      built?.catalogue === catalogue
        ? built
        : { catalogue, document: JSON.stringify(discoveryDocument(app, services, catalogue.publicScopes(), idTokenClaimNames(catalogue))) };
    built = current;
    const { document } = current;
    reply.header('cache-control', 'public, max-age=300');
    reply.type('application/json; charset=utf-8');
    return document;
  };
  app.get('/.well-known/openid-configuration', handler);
  app.get('/.well-known/oauth-authorization-server', handler);
}
