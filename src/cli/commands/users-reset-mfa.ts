// `gatehouse users reset-mfa USER`: for a user who lost their authenticator and recovery codes. Removes the
// TOTP authenticator, every recovery code and every passkey, ends every browser session of the user and revokes
// every grant (refresh-token family) signed in with a second factor, so nothing signed in with the removed
// factor outlives it; the next sign-in is by password alone, after
// which the user can set up a new factor on /account (docs/second-factors.md). The rule is the admin
// API's too (src/admin-services/users-service.ts).
import { parseArgs } from 'node:util';
import { AdminRuleError, cliActor, coreAuditSink, findUserByIdOrUsername, resetSecondFactors, userServiceDeps } from '../../admin-services/index.js';
import { UsageError, type Command } from '../command.js';

export const usersResetMfaCommand: Command = {
  name: 'users reset-mfa',
  usage: 'users reset-mfa USER_ID_OR_USERNAME',
  async run(args, core) {
    const { positionals } = parseArgs({ args, options: {}, strict: true, allowPositionals: true });
    if (positionals.length !== 1) throw new UsageError(`usage: gatehouse ${this.usage}`);
    const user = await findUserByIdOrUsername(core, positionals[0]!).catch((error: unknown) => {
      throw error instanceof AdminRuleError ? new UsageError(error.message) : error;
    });
    const { sessionsEnded, grantsRevoked } = await resetSecondFactors(userServiceDeps(core, coreAuditSink(core)), user, { actor: cliActor() });
    return { id: user.id, second_factors_removed: true, sessions_ended: sessionsEnded, grants_revoked: grantsRevoked };
  },
};
