// `gatehouse users reset-mfa USER`: for a user who lost their authenticator and recovery codes. Removes the
// TOTP authenticator, every recovery code and every passkey, and ends every browser session of the user, so no session
// that was signed in with the removed factor outlives it; the next sign-in is by password alone, after
// which the user can set up a new factor on /account (docs/second-factors.md).
import { parseArgs } from 'node:util';
import { browserSessionsRepository } from '../../storage/browser-sessions-repository.js';
import { passkeysRepository } from '../../storage/passkeys-repository.js';
import { secondFactorsRepository } from '../../storage/second-factors-repository.js';
import { usersRepository } from '../../storage/users-repository.js';
import { UsageError, type Command } from '../command.js';

export const usersResetMfaCommand: Command = {
  name: 'users reset-mfa',
  usage: 'users reset-mfa USER_ID_OR_USERNAME',
  async run(args, core) {
    const { positionals } = parseArgs({ args, options: {}, strict: true, allowPositionals: true });
    if (positionals.length !== 1) throw new UsageError(`usage: gatehouse ${this.usage}`);
    const users = usersRepository(core.db, core.clock);
    const user = (await users.findById(positionals[0]!)) ?? (await users.findByUsername(positionals[0]!));
    if (!user) throw new UsageError(`no user ${positionals[0]}`);
    await secondFactorsRepository(core.db, core.clock).removeAll(user.id);
    await passkeysRepository(core.db, core.clock).removeAll(user.id);
    const sessionsEnded = await browserSessionsRepository(core.db, core.clock).endAllOf(user.id);
    return { id: user.id, second_factors_removed: true, sessions_ended: sessionsEnded };
  },
};
