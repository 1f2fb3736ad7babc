// What is known of the common providers, so that `--preset` needs only the client credentials
// (docs/federation.md). OpenID Connect presets still read the provider's discovery document at creation.
import type { IdentityProviderPreset } from '../storage/repositories/identity-providers-repository.js';

export const PRESETS: readonly IdentityProviderPreset[] = ['google', 'microsoft', 'github', 'gitlab'];

/** Microsoft's multi-tenant issuer: each id_token's `iss` is this with the token's own `tid` (a GUID) put in. */
export const MICROSOFT_TENANT_PLACEHOLDER = '{tenantid}';
export const MICROSOFT_MULTI_TENANT_ISSUER = `https://login.microsoftonline.com/${MICROSOFT_TENANT_PLACEHOLDER}/v2.0`;
/** Work and school accounts of any tenant; the discovery document of this path carries the templated issuer. */
export const MICROSOFT_MULTI_TENANT_DISCOVERY = 'https://login.microsoftonline.com/organizations/v2.0';
export const TENANT_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

export const microsoftTenantIssuer = (tenant: string) => `https://login.microsoftonline.com/${tenant}/v2.0`;

export interface OidcPreset {
  kind: 'oidc';
  name: string;
  issuer: string;
  scopes: string[];
}

export interface OAuth2Preset {
  kind: 'oauth2';
  name: string;
  authorizationEndpoint: string;
  tokenEndpoint: string;
  userinfoEndpoint: string;
  emailsEndpoint: string | null;
  tokenEndpointAuthMethod: 'client_secret_basic' | 'client_secret_post';
  scopes: string[];
  claims: Record<string, string>;
}

export type Preset = OidcPreset | OAuth2Preset;

export const presetOf = (preset: IdentityProviderPreset): Preset => {
  switch (preset) {
    case 'google':
      return { kind: 'oidc', name: 'Google', issuer: 'https://accounts.google.com', scopes: ['openid', 'email', 'profile'] };
    case 'microsoft':
      // Without --tenant: any work or school tenant, each token's issuer checked against its own tid.
      return { kind: 'oidc', name: 'Microsoft', issuer: MICROSOFT_MULTI_TENANT_ISSUER, scopes: ['openid', 'email', 'profile'] };
    case 'gitlab':
      // gitlab.com; a self-managed GitLab is the same preset with --issuer.
      return { kind: 'oidc', name: 'GitLab', issuer: 'https://gitlab.com', scopes: ['openid', 'email', 'profile'] };
    case 'github':
      // Plain OAuth 2.0: no id_token; the numeric id is the subject, and the e-mail is the primary one of
      // /user/emails, verified or not as GitHub says (the profile's public e-mail is not verified).
      return {
        kind: 'oauth2',
        name: 'GitHub',
        authorizationEndpoint: 'https://github.com/login/oauth/authorize',
        tokenEndpoint: 'https://github.com/login/oauth/access_token',
        userinfoEndpoint: 'https://api.github.com/user',
        emailsEndpoint: 'https://api.github.com/user/emails',
        tokenEndpointAuthMethod: 'client_secret_post',
        scopes: ['read:user', 'user:email'],
        claims: { sub: 'id', preferred_username: 'login', name: 'name', picture: 'avatar_url' },
      };
  }
};
