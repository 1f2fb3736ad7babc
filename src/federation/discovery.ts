// An OpenID provider's discovery document (OpenID Connect Discovery 1.0), read once when the provider is
// created, through the outbound policy and bounds of every upstream call. Its `issuer` must be exactly the
// one asked for (4.3), except Microsoft's multi-tenant document, whose issuer is the `{tenantid}` template.
import type { OutboundPolicy } from '../http/outbound/outbound-policy.js';
import { FederationFailure } from './errors.js';
import { MICROSOFT_MULTI_TENANT_DISCOVERY, MICROSOFT_MULTI_TENANT_ISSUER } from './presets.js';
import { upstreamFetch, upstreamJson, type UpstreamLimits } from './upstream-fetch.js';

export interface DiscoveredEndpoints {
  issuer: string;
  authorizationEndpoint: string;
  tokenEndpoint: string;
  userinfoEndpoint: string | null;
  jwksUri: string;
  authorizationResponseIss: boolean;
  tokenEndpointAuthMethod: 'client_secret_basic' | 'client_secret_post';
}

const wellKnown = (issuer: string) => `${issuer.replace(/\/+$/, '')}/.well-known/openid-configuration`;

const text = (document: Record<string, unknown>, member: string, required: boolean): string | null => {
  const value = document[member];
  if (typeof value === 'string' && value.length > 0 && value.length <= 2048) return value;
  if (value === undefined && !required) return null;
  throw new FederationFailure('upstream_invalid', `the discovery document's ${member} is ${value === undefined ? 'missing' : 'not a URL'}`);
};

/** The endpoints of `issuer`, or a FederationFailure (unreachable, refused by the policy, not a matching document). */
export async function discoverProvider(issuer: string, deps: { outbound: OutboundPolicy; limits: UpstreamLimits }): Promise<DiscoveredEndpoints> {
  const multiTenant = issuer === MICROSOFT_MULTI_TENANT_ISSUER;
  let document: unknown;
  try {
    document = await upstreamJson(upstreamFetch(deps.outbound, deps.limits), wellKnown(multiTenant ? MICROSOFT_MULTI_TENANT_DISCOVERY : issuer));
  } catch (error) {
    throw new FederationFailure('upstream_unreachable', `discovery of ${issuer}: ${(error as Error).message}`);
  }
  if (!document || typeof document !== 'object' || Array.isArray(document))
    throw new FederationFailure('upstream_invalid', `discovery of ${issuer}: not a JSON object`);
  const doc = document as Record<string, unknown>;
  if (doc.issuer !== issuer) {
    throw new FederationFailure(
      'upstream_invalid',
      `discovery of ${issuer}: the document names the issuer ${JSON.stringify(String(doc.issuer).slice(0, 200))} (OpenID Connect Discovery 4.3: they must be equal)`,
    );
  }
  const methods = Array.isArray(doc.token_endpoint_auth_methods_supported) ? doc.token_endpoint_auth_methods_supported : ['client_secret_basic'];
  return {
    issuer,
    authorizationEndpoint: text(doc, 'authorization_endpoint', true)!,
    tokenEndpoint: text(doc, 'token_endpoint', true)!,
    userinfoEndpoint: text(doc, 'userinfo_endpoint', false),
    jwksUri: text(doc, 'jwks_uri', true)!,
    authorizationResponseIss: doc.authorization_response_iss_parameter_supported === true,
    // RFC 6749 2.3.1: basic is the one every server must support; post only when it is all the server offers.
    tokenEndpointAuthMethod: methods.includes('client_secret_basic') || !methods.includes('client_secret_post') ? 'client_secret_basic' : 'client_secret_post',
  };
}
