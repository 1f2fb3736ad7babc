// `gatehouse users invite --email E [--name N] [--username U] [--locale L]`, `users invitations` (the pending
// ones) and `users revoke-invitation ID`: the account is created and a single-use set-your-password link is
// mailed through the outbox — which the running server delivers (docs/email.md). The rules are the admin
// API's (src/invitations/invitations.ts); the link itself is never printed: only the invitee receives it.
import { parseArgs } from 'node:util';
import { AdminRuleError, cliActor } from '../../admin-services/index.js';
import { invitationDeps, inviteUser, listPendingInvitations, revokeInvitation, type Invitation } from '../../invitations/invitations.js';
import { UsageError, type Command } from '../command.js';

const view = (i: Invitation) => ({ id: i.id, user_id: i.userId, email: i.email, created_at: i.createdAt.toISOString(), expires_at: i.expiresAt.toISOString() });

async function asUsage<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof AdminRuleError) throw new UsageError(error.code === 'invalid' && error.field ? `--${error.field} ${error.message}` : error.message);
    throw error;
  }
}

export const usersInviteCommand: Command = {
  name: 'users invite',
  usage: 'users invite --email E [--name N] [--username U] [--locale en|de]',
  async run(args, core) {
    const { values } = parseArgs({
      args,
      options: { email: { type: 'string' }, name: { type: 'string' }, username: { type: 'string' }, locale: { type: 'string' } },
      strict: true,
    });
    if (!values.email) throw new UsageError(`usage: gatehouse ${this.usage}`);
    const { user, invitation } = await asUsage(() =>
      inviteUser(invitationDeps(core), { email: values.email!, name: values.name, username: values.username, locale: values.locale }, { actor: cliActor() }),
    );
    return { ...view(invitation), username: user.username, mail: 'queued (the running server sends it)' };
  },
};

export const usersInvitationsCommand: Command = {
  name: 'users invitations',
  usage: 'users invitations',
  async run(args, core) {
    parseArgs({ args, options: {}, strict: true });
    return { invitations: (await listPendingInvitations(core, { limit: 1000 })).map(view) };
  },
};

export const usersRevokeInvitationCommand: Command = {
  name: 'users revoke-invitation',
  usage: 'users revoke-invitation INVITATION_ID',
  async run(args, core) {
    const { positionals } = parseArgs({ args, options: {}, strict: true, allowPositionals: true });
    if (positionals.length !== 1) throw new UsageError(`usage: gatehouse ${this.usage}`);
    await asUsage(() => revokeInvitation(invitationDeps(core), positionals[0]!, { actor: cliActor() }));
    return { id: positionals[0], revoked: true };
  },
};
