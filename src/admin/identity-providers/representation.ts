// An identity provider as the admin API shows it, its validators, and the service input of a document.
import type { Static } from '@sinclair/typebox';
import { strongEtag, type Validators } from '../../http/conditional.js';
import type { Config } from '../../config.js';
import type { IdentityProvider } from '../../storage/repositories/identity-providers-repository.js';
import { identityProviderView, type IdentityProviderInput } from '../../admin-services/identity-providers-service.js';
import type { CreateIdentityProviderBody, IdentityProviderSchema } from './schemas.js';

export const identityProviderPath = (prefix: string, id: string) => `${prefix}/identity-providers/${encodeURIComponent(id)}`;

export const representIdentityProvider = (config: Pick<Config, 'ISSUER'>) => (p: IdentityProvider) =>
  ({ ...identityProviderView(p, config.ISSUER), updated_at: p.updatedAt.toISOString() }) as Static<typeof IdentityProviderSchema>;

/** Strong: the version changes with every write. */
export const identityProviderValidators = (p: IdentityProvider): Validators => ({
  etag: strongEtag('identity-provider', p.id, p.version),
  lastModified: p.updatedAt,
});

export const identityProviderInput = (body: CreateIdentityProviderBody): IdentityProviderInput => ({
  clientId: body.client_id,
  clientSecretEnv: body.client_secret_env,
  ...(body.slug !== undefined ? { slug: body.slug } : {}),
  ...(body.name !== undefined ? { name: body.name } : {}),
  ...(body.kind !== undefined ? { kind: body.kind } : {}),
  ...(body.preset !== undefined ? { preset: body.preset } : {}),
  ...(body.issuer !== undefined ? { issuer: body.issuer } : {}),
  ...(body.scopes !== undefined ? { scopes: body.scopes } : {}),
  ...(body.domains !== undefined ? { domains: body.domains } : {}),
  ...(body.tenants !== undefined ? { tenants: body.tenants } : {}),
  ...(body.provision !== undefined ? { provision: body.provision } : {}),
  ...(body.link !== undefined ? { link: body.link } : {}),
  ...(body.authorization_endpoint !== undefined ? { authorizationEndpoint: body.authorization_endpoint } : {}),
  ...(body.token_endpoint !== undefined ? { tokenEndpoint: body.token_endpoint } : {}),
  ...(body.userinfo_endpoint !== undefined ? { userinfoEndpoint: body.userinfo_endpoint } : {}),
  ...(body.emails_endpoint !== undefined ? { emailsEndpoint: body.emails_endpoint } : {}),
  ...(body.token_endpoint_auth_method !== undefined ? { tokenEndpointAuthMethod: body.token_endpoint_auth_method } : {}),
  ...(body.claims !== undefined ? { claims: body.claims } : {}),
  ...(body.trust_mfa !== undefined ? { trustMfa: body.trust_mfa } : {}),
  ...(body.store_tokens !== undefined ? { storeTokens: body.store_tokens } : {}),
  ...(body.enabled !== undefined ? { enabled: body.enabled } : {}),
});
