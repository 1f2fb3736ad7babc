// A stored provider as oauth4webapi's AuthorizationServer and Client, and its client authentication with
// the secret read from the environment at use (never stored, docs/federation.md).
import * as oauth from 'oauth4webapi';
import type { Clock } from '../clock.js';
import type { IdentityProvider } from '../storage/repositories/identity-providers-repository.js';
import { FederationFailure } from './errors.js';
import { MICROSOFT_TENANT_PLACEHOLDER, TENANT_ID } from './presets.js';

// Exported by oauth4webapi (and used by openid-client for Entra ID) but left out of its type declarations.
const EXPECTED_ISSUER = (oauth as unknown as { _expectedIssuer: symbol })._expectedIssuer;

/** A placeholder issuer for an oauth2 provider that states none: oauth4webapi needs one; it is never compared. */
const NO_ISSUER = 'urn:gatehouse:federation:no-issuer';

export const isMultiTenant = (provider: Pick<IdentityProvider, 'issuer'>): boolean => provider.issuer?.includes(MICROSOFT_TENANT_PLACEHOLDER) ?? false;

/**
 * The `iss` an id_token of this provider must carry. For Microsoft's multi-tenant issuer it is the template
 * with the token's own `tid` put in (after checking `tid` is a GUID and, when the provider lists tenants,
 * one of them): a token from tenant A can never pass as tenant B's, and no issuer check is skipped.
 */
export function expectedIdTokenIssuer(provider: Pick<IdentityProvider, 'issuer' | 'tenants'>, claims: Record<string, unknown>): string {
  if (!isMultiTenant(provider)) return provider.issuer ?? NO_ISSUER;
  const tid = claims.tid;
  if (typeof tid !== 'string' || !TENANT_ID.test(tid))
    throw new FederationFailure('upstream_invalid', 'the id_token of a multi-tenant issuer has no tenant id (tid)');
  if (provider.tenants.length > 0 && !provider.tenants.includes(tid))
    throw new FederationFailure('upstream_refused', `tenant ${tid} is not among the provider's allowed tenants`);
  return provider.issuer!.replace(MICROSOFT_TENANT_PLACEHOLDER, tid);
}

export function authorizationServer(provider: IdentityProvider): oauth.AuthorizationServer {
  const as: oauth.AuthorizationServer = {
    issuer: provider.issuer ?? NO_ISSUER,
    authorization_endpoint: provider.authorizationEndpoint,
    token_endpoint: provider.tokenEndpoint,
    ...(provider.userinfoEndpoint ? { userinfo_endpoint: provider.userinfoEndpoint } : {}),
    ...(provider.jwksUri ? { jwks_uri: provider.jwksUri } : {}),
    // The RFC 9207 check is ours (callback.ts), before oauth4webapi sees the response.
    authorization_response_iss_parameter_supported: false,
  };
  if (isMultiTenant(provider)) {
    // oauth4webapi's hook for an issuer that depends on the token (openid-client sets it for Entra ID the same way).
    (as as unknown as Record<symbol, unknown>)[EXPECTED_ISSUER] = (result: { claims: Record<string, unknown> }) => {
      try {
        return expectedIdTokenIssuer(provider, result.claims);
      } catch {
        return `${provider.issuer} (no valid tid)`;
      }
    };
  }
  return as;
}

export function upstreamClient(provider: IdentityProvider, clock: Clock): oauth.Client {
  return {
    client_id: provider.clientId,
    // oauth4webapi reads "now" from the system; a moved test clock shifts it by the same amount.
    [oauth.clockSkew]: Math.round((clock.now() - Date.now()) / 1000),
    [oauth.clockTolerance]: 30,
  };
}

/** The client secret, read now from the environment variable the provider names. */
export function clientAuthentication(provider: IdentityProvider, env: Readonly<Record<string, string | undefined>>): oauth.ClientAuth {
  const secret = env[provider.clientSecretEnv];
  if (!secret)
    throw new FederationFailure(
      'provider_unavailable',
      `the environment variable ${provider.clientSecretEnv} (client secret of identity provider ${provider.slug}) is not set`,
    );
  return provider.tokenEndpointAuthMethod === 'client_secret_post' ? oauth.ClientSecretPost(secret) : oauth.ClientSecretBasic(secret);
}
