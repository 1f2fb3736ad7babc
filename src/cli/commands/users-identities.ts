// `gatehouse users identities USER` and `users unlink USER PROVIDER`: a user's links to upstream identity
// providers as /admin/v1/users/{id}/identities shows them, and removing one through the same rule
// (src/admin-services/user-identities-service.ts): never the user's last way to sign in, audited
// (`admin.user.identity_unlinked`) with the CLI as the actor. PROVIDER is the provider's slug or id.
import { parseArgs } from 'node:util';
import { cliActor, coreAuditSink, findUserByIdOrUsername, userAccessServiceDeps } from '../../admin-services/index.js';
import { findUserIdentity, identityView, listUserIdentities, removeUserIdentity } from '../../admin-services/user-identities-service.js';
import { UsageError, type Command } from '../command.js';
import { ruleErrorsAsUsage } from '../rule-errors-as-usage.js';

// A service's rule error is the command's usage error, its message as it is.
const asUsage = ruleErrorsAsUsage({});

function positionals(args: string[], count: number, usage: string): string[] {
  const { positionals: found } = parseArgs({ args, options: {}, strict: true, allowPositionals: true });
  if (found.length !== count) throw new UsageError(`usage: gatehouse ${usage}`);
  return found;
}

export const usersIdentitiesCommand: Command = {
  name: 'users identities',
  usage: 'users identities USER_ID_OR_USERNAME   (links to upstream identity providers)',
  async run(args, core) {
    const [who] = positionals(args, 1, this.usage);
    const user = await asUsage(() => findUserByIdOrUsername(core, who!));
    const links = await asUsage(() => listUserIdentities(core, user.id));
    return { identities: links.map(identityView) };
  },
};

export const usersUnlinkCommand: Command = {
  name: 'users unlink',
  usage: 'users unlink USER_ID_OR_USERNAME PROVIDER_SLUG_OR_ID   (never the last way to sign in)',
  async run(args, core) {
    const [who, provider] = positionals(args, 2, this.usage);
    const user = await asUsage(() => findUserByIdOrUsername(core, who!));
    const identity = await asUsage(() => findUserIdentity(core, user.id, provider!));
    await asUsage(() => removeUserIdentity(userAccessServiceDeps(core, coreAuditSink(core)), identity, { actor: cliActor() }));
    return { unlinked: identity.provider?.slug ?? identity.providerId, user_id: user.id };
  },
};
