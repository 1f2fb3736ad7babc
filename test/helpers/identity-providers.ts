// A stored upstream OpenID provider for tests that need one to exist (links, client lists, unlinking) but never
// talk to it: written straight through the repository, so no discovery document is fetched.
import type { Db } from '../../src/storage/driver/database.js';
import { identityProvidersRepository, type IdentityProvider } from '../../src/storage/repositories/identity-providers-repository.js';

export async function storedIdentityProvider(
  db: Db,
  slug: string,
  options: { name?: string; provision?: boolean; storeTokens?: boolean } = {},
): Promise<IdentityProvider> {
  const created = await identityProvidersRepository(db).create({
    name: options.name ?? slug,
    slug,
    kind: 'oidc',
    preset: null,
    issuer: `https://${slug}.example`,
    authorizationEndpoint: `https://${slug}.example/auth`,
    tokenEndpoint: `https://${slug}.example/token`,
    userinfoEndpoint: null,
    jwksUri: `https://${slug}.example/jwks`,
    emailsEndpoint: null,
    authorizationResponseIss: false,
    clientId: 'c',
    clientSecretEnv: 'X',
    tokenEndpointAuthMethod: 'client_secret_basic',
    scopes: ['openid'],
    domains: [],
    tenants: [],
    claims: {},
    provision: options.provision ?? false,
    link: 'never',
    storeTokens: options.storeTokens ?? false,
  });
  if (!created) throw new Error(`an identity provider ${slug} exists already`);
  return created;
}
