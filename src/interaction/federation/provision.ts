// A new local account from an upstream sign-in (the provider's `--provision on`, decideLinking's
// `provision`): profile claims from the upstream, the e-mail verified only if the upstream asserted it,
// no password (user-rules/sign-in-ways.ts), and the link to (provider, sub) — then `account.provisioned`
// and `account.identity_linked` audit events. The username is the upstream's preferred username or the
// e-mail, else `slug-sub`; a taken one gets a random suffix.
import { randomBytes } from 'node:crypto';
import type { AuditSink } from '../../audit/audit-sink.js';
import type { Clock } from '../../clock.js';
import type { UpstreamIdentity } from '../../federation/upstream-claims.js';
import { USERNAME } from '../../admin-services/users-service.js';
import { UsernameTakenError, type User } from '../../storage/repositories/users-repository.js';
import { NO_PASSWORD_HASH } from '../../user-rules/sign-in-ways.js';
import type { FederationFlowDeps } from './federation-flow-deps.js';

function candidates(identity: UpstreamIdentity): string[] {
  const fallback = `${identity.provider.slug}-${identity.subject}`.replace(/[^A-Za-z0-9._@+-]/g, '-').slice(0, 64);
  return [identity.preferredUsername, identity.email, fallback].filter((name): name is string => name !== null && USERNAME.test(name));
}

export async function provisionUser(
  identity: UpstreamIdentity,
  emailVerified: boolean,
  /** No client when the sign-in is /account's own. */
  context: { traceId: string; clientId?: string | undefined },
  deps: { federation: FederationFlowDeps; audit: AuditSink; clock: Clock },
): Promise<User | undefined> {
  const profile = {
    passwordHash: NO_PASSWORD_HASH,
    email: identity.email,
    email_verified: identity.email !== null && emailVerified,
    name: identity.name,
    given_name: identity.givenName,
    family_name: identity.familyName,
  };
  const names = candidates(identity);
  const base = names[0] ?? `user-${randomBytes(6).toString('hex')}`;
  const tries = [...names, ...[1, 2, 3].map(() => `${base.slice(0, 55)}-${randomBytes(4).toString('hex')}`)];
  let user: User | undefined;
  for (const username of tries) {
    try {
      user = await deps.federation.users.create({ ...profile, username });
      break;
    } catch (error) {
      if (!(error instanceof UsernameTakenError)) throw error;
    }
  }
  if (!user) return undefined;
  const linked = await deps.federation.identities.link(
    { providerId: identity.provider.id, subject: identity.subject, userId: user.id, email: identity.email },
    new Date(deps.clock.now()),
  );
  // A parallel callback for the same upstream account linked first: the account just made goes again.
  if (linked !== 'linked') {
    await deps.federation.users.delete(user.id);
    return undefined;
  }
  const common = {
    actor: { kind: 'system' as const },
    subject: user.id,
    ...(context.clientId ? { clientId: context.clientId } : {}),
    traceId: context.traceId,
  };
  await deps.audit.emit({ type: 'account.provisioned', ...common, details: { provider: identity.provider.slug, email_verified: profile.email_verified } });
  await deps.audit.emit({ type: 'account.identity_linked', ...common, details: { provider: identity.provider.slug, how: 'provisioned' } });
  return user;
}
