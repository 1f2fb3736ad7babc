// `gatehouse export`: the resource servers, identity providers and clients `gatehouse apply` manages, in its
// file format and with the defaults left out, so that `export` then `apply --dry-run` plans nothing. No
// secret is written: a secret-based client gets a client_secret_env placeholder naming the variable to set,
// and an identity provider's client_secret_env is the variable name it already has (no provider secret is
// ever stored) (docs/configuration-as-code.md).
import type { Clock } from '../clock.js';
import type { Config } from '../config.js';
import type { Store } from '../storage/store.js';
import { usesSecret } from '../oauth/clients/create-client.js';
import type { Client } from '../storage/repositories/clients-repository.js';
import type { ResourceServer } from '../storage/repositories/resource-servers-repository.js';
import { isBuiltIn } from './resource-servers-service.js';
import { readState } from './apply-configuration.js';
import type { ClientEntry, ConfigFile, IdentityProviderEntry, ResourceServerEntry, WebhookEntry } from './config-file.js';
import type { WebhookEndpoint } from '../storage/repositories/webhook-endpoints-repository.js';
import type { IdentityProvider } from '../storage/repositories/identity-providers-repository.js';

/** The variable name export proposes for a client's secret: GATEHOUSE_SECRET_ and the client_id in capitals. */
const secretEnvName = (clientId: string): string => `GATEHOUSE_SECRET_${clientId.toUpperCase().replace(/[^A-Z0-9]/g, '_')}`;

function clientEntry(c: Client): ClientEntry {
  return {
    client_id: c.id,
    client_name: c.name,
    token_endpoint_auth_method: c.authMethod,
    ...(usesSecret(c) ? { client_secret_env: secretEnvName(c.id) } : {}),
    grant_types: c.grantTypes,
    scope: c.scopes.join(' '),
    ...(c.redirectUris.length > 0 ? { redirect_uris: c.redirectUris } : {}),
    ...(c.postLogoutRedirectUris.length > 0 ? { post_logout_redirect_uris: c.postLogoutRedirectUris } : {}),
    ...(c.jwksUri ? { jwks_uri: c.jwksUri } : {}),
    ...(c.jwks ? { jwks: c.jwks as ClientEntry['jwks'] } : {}),
    ...(c.idTokenSignedResponseAlg !== 'RS256' ? { id_token_signed_response_alg: c.idTokenSignedResponseAlg } : {}),
    ...(c.skipConsent ? { skip_consent: true } : {}),
    ...(c.requireMfa ? { require_mfa: true } : {}),
    ...(c.tokenExchangeImpersonation ? { token_exchange_impersonation: true } : {}),
    ...(c.allowedOrigins.length > 0 ? { allowed_origins: c.allowedOrigins } : {}),
    ...(c.defaultResource ? { default_resource: c.defaultResource } : {}),
    ...(c.identityProviders ? { identity_providers: c.identityProviders } : {}),
    ...(c.backchannelLogoutUri ? { backchannel_logout_uri: c.backchannelLogoutUri } : {}),
    ...(c.backchannelLogoutSessionRequired ? { backchannel_logout_session_required: true } : {}),
  };
}

/** The variable export proposes for a webhook secret when `apply` did not name one: GATEHOUSE_WEBHOOK_SECRET_ and the name in capitals. */
export const webhookSecretEnvName = (name: string): string => `GATEHOUSE_WEBHOOK_SECRET_${name.toUpperCase().replace(/[^A-Z0-9]/g, '_')}`;

const webhookEntry = (w: WebhookEndpoint): WebhookEntry => ({
  name: w.name,
  url: w.url,
  ...(w.description ? { description: w.description } : {}),
  ...(w.eventTypes.length > 0 ? { event_types: w.eventTypes } : {}),
  ...(!w.enabled ? { enabled: false } : {}),
  secret_env: w.secretEnv ?? webhookSecretEnvName(w.name),
});

const serverEntry = (s: ResourceServer): ResourceServerEntry => ({
  identifier: s.identifier,
  name: s.name,
  scopes: s.scopes.map((x) => ({ name: x.name, description: x.description })),
  ...(s.accessTokenTtl !== null ? { access_token_ttl: s.accessTokenTtl } : {}),
  ...(!s.offlineAccess ? { offline_access: false } : {}),
  ...(s.tokenExchangeClients.length > 0 ? { token_exchange_clients: [...s.tokenExchangeClients] } : {}),
});

/**
 * An OpenID provider is written with its issuer (its endpoints are discovered again on apply), a plain
 * OAuth 2.0 one with its endpoints; Microsoft's multi-tenant issuer template is the preset's, not written.
 */
function providerEntry(p: IdentityProvider): IdentityProviderEntry {
  const multiTenantTemplate = p.preset === 'microsoft' && (p.issuer ?? '').includes('{tenantid}');
  return {
    slug: p.slug,
    name: p.name,
    kind: p.kind,
    ...(p.preset ? { preset: p.preset } : {}),
    ...(p.issuer && !multiTenantTemplate ? { issuer: p.issuer } : {}),
    ...(p.kind === 'oauth2'
      ? {
          authorization_endpoint: p.authorizationEndpoint,
          token_endpoint: p.tokenEndpoint,
          ...(p.userinfoEndpoint ? { userinfo_endpoint: p.userinfoEndpoint } : {}),
          ...(p.emailsEndpoint ? { emails_endpoint: p.emailsEndpoint } : {}),
        }
      : {}),
    client_id: p.clientId,
    client_secret_env: p.clientSecretEnv,
    token_endpoint_auth_method: p.tokenEndpointAuthMethod,
    scopes: p.scopes,
    ...(p.domains.length > 0 ? { domains: p.domains } : {}),
    ...(p.tenants.length > 0 ? { tenants: p.tenants } : {}),
    ...(Object.keys(p.claims).length > 0 ? { claims: p.claims } : {}),
    ...(p.provision ? { provision: true } : {}),
    ...(p.link !== 'verified-email' ? { link: p.link } : {}),
    ...(p.trustMfa ? { trust_mfa: true } : {}),
    ...(p.storeTokens ? { store_tokens: true } : {}),
    ...(!p.enabled ? { enabled: false } : {}),
  };
}

/** Built-ins are left out: they exist on every server, and apply never deletes them. */
export async function exportConfiguration(deps: { store: Store; clock: Clock; config: Pick<Config, 'ISSUER' | 'API_AUDIENCE'> }): Promise<ConfigFile> {
  const state = await readState(deps.store);
  const webhooks = (await deps.store.webhookEndpoints.page({ limit: 10_000 })).map(webhookEntry);
  return {
    resource_servers: state.servers.filter((s) => !isBuiltIn(deps.config, s.identifier)).map(serverEntry),
    identity_providers: state.providers.map(providerEntry),
    clients: state.clients.map(clientEntry),
    // Left out when there are none: the file then leaves webhooks alone when applied.
    ...(webhooks.length > 0 ? { webhooks } : {}),
  };
}
