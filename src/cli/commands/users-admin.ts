// `gatehouse users grant-admin USER [--read-only]` and `users revoke-admin USER`: who may sign in to the
// admin console (/console) and with which admin scopes. CLI only, audited (admin-services/operator-roles-service.ts);
// docs/console.md.
import { parseArgs } from 'node:util';
import {
  AdminRuleError,
  cliActor,
  coreAuditSink,
  findUserByIdOrUsername,
  grantAdmin,
  operatorRoleServiceDeps,
  revokeAdmin,
} from '../../admin-services/index.js';
import type { CliDeps } from '../deps.js';
import { UsageError, type Command } from '../command.js';

async function userNamed(core: CliDeps, args: string[], usage: string, options: { 'read-only'?: { type: 'boolean' } } = {}) {
  const { positionals, values } = parseArgs({ args, options, strict: true, allowPositionals: true });
  if (positionals.length !== 1) throw new UsageError(`usage: gatehouse ${usage}`);
  const user = await findUserByIdOrUsername(core, positionals[0]!).catch((error: unknown) => {
    throw error instanceof AdminRuleError ? new UsageError(error.message) : error;
  });
  return { user, readOnly: (values as { 'read-only'?: boolean })['read-only'] === true };
}

export const usersGrantAdminCommand: Command = {
  name: 'users grant-admin',
  usage: 'users grant-admin USER_ID_OR_USERNAME [--read-only]   (admin:write needs a second factor at each sign-in)',
  async run(args, core) {
    const { user, readOnly } = await userNamed(core, args, this.usage, { 'read-only': { type: 'boolean' } });
    return grantAdmin(operatorRoleServiceDeps(core, coreAuditSink(core)), user, { readOnly }, { actor: cliActor() });
  },
};

export const usersRevokeAdminCommand: Command = {
  name: 'users revoke-admin',
  usage: 'users revoke-admin USER_ID_OR_USERNAME',
  async run(args, core) {
    const { user } = await userNamed(core, args, this.usage);
    return revokeAdmin(operatorRoleServiceDeps(core, coreAuditSink(core)), user, { actor: cliActor() });
  },
};
