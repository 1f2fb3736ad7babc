// A user's links to upstream identity providers (docs/federation.md), for /admin/v1/users/{id}/identities and
// `gatehouse users identities`. A link is named by its provider's id (a user has at most one per provider).
// Removing one follows the rule every face shares (user-rules/unlink-provider.ts): never the user's last way
// to sign in — then a conflict, and the operator sets a password first. `admin.user.identity_unlinked`.
import type { FederatedIdentity } from '../storage/repositories/federated-identities-repository.js';
import type { StoredUpstreamTokens } from '../storage/repositories/federated-identity-tokens-repository.js';
import type { IdentityProvider } from '../storage/repositories/identity-providers-repository.js';
import { unlinkProvider } from '../user-rules/unlink-provider.js';
import type { ActingAs } from './clients-service.js';
import { AdminRuleError } from './rule-error.js';
import type { UserAccessServiceDeps } from './user-access-service.js';

export interface UserIdentity extends FederatedIdentity {
  provider: Pick<IdentityProvider, 'id' | 'slug' | 'name'> | null;
  /**
   * --store-tokens: that the upstream's tokens are kept and when the access token expires — never the tokens
   * (sealed; an operator's own integration opens them with the key-encryption key, docs/federation.md).
   */
  tokens: Omit<StoredUpstreamTokens, 'providerId' | 'subject' | 'sealed'> | null;
}

export async function listUserIdentities(deps: Pick<UserAccessServiceDeps, 'store' | 'clock'>, userId: string): Promise<UserIdentity[]> {
  if (!(await deps.store.users.findById(userId))) throw new AdminRuleError('not-found', `no user ${userId}`);
  const links = await deps.store.federatedIdentities.forUser(userId);
  const providers = deps.store.identityProviders;
  const tokens = deps.store.federatedIdentityTokens;
  return Promise.all(
    links.map(async (link) => {
      const [provider, stored] = await Promise.all([providers.find(link.providerId), tokens.find(link.providerId, link.subject)]);
      return {
        ...link,
        provider: provider ? { id: provider.id, slug: provider.slug, name: provider.name } : null,
        tokens: stored ? { expiresAt: stored.expiresAt, hasRefreshToken: stored.hasRefreshToken, scope: stored.scope, storedAt: stored.storedAt } : null,
      };
    }),
  );
}

/** A link as the admin API and the CLI show it (snake_case; the tokens' existence and expiry, never the tokens). */
export const identityView = (i: UserIdentity) => ({
  id: i.providerId,
  user_id: i.userId,
  provider: i.provider,
  subject: i.subject,
  email: i.email,
  created_at: i.createdAt.toISOString(),
  last_used_at: i.lastUsedAt?.toISOString() ?? null,
  upstream_tokens: i.tokens
    ? {
        stored_at: i.tokens.storedAt.toISOString(),
        expires_at: i.tokens.expiresAt?.toISOString() ?? null,
        refresh_token: i.tokens.hasRefreshToken,
        scope: i.tokens.scope,
      }
    : null,
});

/** By the provider's id or slug. */
export async function findUserIdentity(deps: Pick<UserAccessServiceDeps, 'store' | 'clock'>, userId: string, provider: string): Promise<UserIdentity> {
  const found = (await listUserIdentities(deps, userId)).find((l) => l.providerId === provider || l.provider?.slug === provider);
  if (!found) throw new AdminRuleError('not-found', `user ${userId} has no link to ${provider}`);
  return found;
}

export async function removeUserIdentity(deps: UserAccessServiceDeps, identity: UserIdentity, as: ActingAs): Promise<void> {
  const outcome = await unlinkProvider(
    deps,
    { userId: identity.userId, providerId: identity.providerId },
    {
      type: 'admin.user.identity_unlinked',
      actor: as.actor,
      resource: 'user',
      resourceId: identity.userId,
      ...(as.traceId ? { traceId: as.traceId } : {}),
      details: { provider: identity.provider?.slug ?? identity.providerId },
    },
  );
  if (outcome === 'last_way_in')
    throw new AdminRuleError('conflict', 'This link is the user’s last way to sign in (no password, no passkey, no other link). Set a password first.');
  if (outcome !== 'unlinked') throw new AdminRuleError('not-found', `user ${identity.userId} has no link to ${identity.providerId}`);
}
