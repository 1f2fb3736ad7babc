// A stored upstream OpenID provider for tests that need one to exist (links, client lists, unlinking) but never
// talk to it: written straight through the repository, so no discovery document is fetched.
import type { Db } from '../../src/storage/driver/database.js';
import { identityProvidersRepository, type IdentityProvider } from '../../src/storage/repositories/identity-providers-repository.js';
import type { User } from '../../src/storage/repositories/users-repository.js';
import type { Clock } from '../../src/clock.js';
import { NO_PASSWORD_HASH } from '../../src/user-rules/sign-in-ways.js';
import { createUser, PASSWORD } from './users.js';

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

/**
 * A user linked to each of `providers` (subject `sub-USERID`), with the test password or, with `password: false`,
 * none — so the links are their only ways in.
 */
export async function linkedUser(
  t: { core: { db: Db; clock: Clock } },
  options: { password: boolean; providers: IdentityProvider[]; email?: string },
): Promise<User> {
  const user = await createUser(t.core.db, t.core.clock, { password: PASSWORD });
  if (!options.password) await t.core.db.updateTable('users').set({ password_hash: NO_PASSWORD_HASH }).where('id', '=', user.id).execute();
  for (const p of options.providers) {
    await t.core.db
      .insertInto('federated_identities')
      .values({
        provider_id: p.id,
        subject: `sub-${user.id}`,
        user_id: user.id,
        email: options.email ?? 'linked@example.org',
        created_at: new Date(),
        last_used_at: null,
      })
      .execute();
  }
  return user;
}
