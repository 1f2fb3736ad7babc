// `gatehouse users create|list|update|set-password|delete`: the operator's side of the accounts. The rules
// are the admin API's (src/admin-services/users-service.ts): only the operator may raise a verified flag
// (user-rules/verified-claims.ts); a password change ends the user's sessions and refresh tokens; delete
// ends them by the cascade. Every change is audited as the operating-system user who ran the CLI.
import { parseArgs, type ParseArgsConfig } from 'node:util';
import type { CliDeps } from '../deps.js';
import {
  AdminFieldErrors,
  AdminRuleError,
  cliActor,
  coreAuditSink,
  createUserRecord,
  deleteUserRecord,
  findUserRecord,
  MIN_PASSWORD,
  setUserPassword,
  updateUserRecord,
  userFields,
  userServiceDeps,
  userView,
  USERNAME_RULE,
} from '../../admin-services/index.js';
import { UsageError, type Command } from '../command.js';

const services = (core: CliDeps) => userServiceDeps(core, coreAuditSink(core));

/** Runs a user service call; its rule errors become usage errors in the CLI's words (`flag`: how a field error reads). */
async function asUsage<T>(work: () => Promise<T>, flag: (field: string) => string = (field) => field): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof AdminFieldErrors) throw new UsageError(error.errors.map((e) => `${flag(e.field)} ${e.message}`).join('; '));
    if (error instanceof AdminRuleError && error.code === 'invalid' && error.field === 'username')
      throw new UsageError(`--username is required: ${USERNAME_RULE}`);
    if (error instanceof AdminRuleError && error.code === 'invalid' && error.field === 'password' && error.message.includes('at least')) {
      throw new UsageError(`--password is required (at least ${MIN_PASSWORD} characters)`);
    }
    if (error instanceof AdminRuleError && error.code === 'invalid' && error.field !== undefined) throw new UsageError(`--${error.field} ${error.message}`);
    if (error instanceof AdminRuleError) throw new UsageError(error.message);
    throw error;
  }
}

function onePositional(args: string[], options: ParseArgsConfig['options'], usage: string) {
  const parsed = parseArgs({ args, options: options ?? {}, strict: true, allowPositionals: true });
  if (parsed.positionals.length !== 1) throw new UsageError(`usage: gatehouse ${usage}`);
  return { id: parsed.positionals[0]!, values: parsed.values as Record<string, string | boolean | undefined> };
}

export const usersCreateCommand: Command = {
  name: 'users create',
  usage: 'users create --username U --password P [--email E] [--name N] [--given-name G] [--family-name F] [--phone P] [--email-verified] [--phone-verified]',
  async run(args, core) {
    const { values } = parseArgs({
      args,
      options: {
        username: { type: 'string' },
        password: { type: 'string' },
        email: { type: 'string' },
        name: { type: 'string' },
        'given-name': { type: 'string' },
        'family-name': { type: 'string' },
        phone: { type: 'string' },
        'email-verified': { type: 'boolean' },
        'phone-verified': { type: 'boolean' },
      },
      strict: true,
    });
    const fields = {
      username: values.username ?? '',
      password: values.password,
      name: values.name ?? null,
      given_name: values['given-name'] ?? null,
      family_name: values['family-name'] ?? null,
      email: values.email ?? null,
      phone_number: values.phone ?? null,
      address: null,
      email_verified: values['email-verified'] ?? false,
      phone_number_verified: values['phone-verified'] ?? false,
    };
    const user = await asUsage(
      () => createUserRecord(services(core), fields, { actor: cliActor() }),
      (field) => `--${field.replace(/_/g, '-')}`,
    );
    return { id: user.id, username: user.username };
  },
};

export const usersListCommand: Command = {
  name: 'users list',
  usage: 'users list',
  async run(args, core) {
    parseArgs({ args, options: {}, strict: true });
    return { users: (await core.store.users.list()).map(userView) };
  },
};

export const usersUpdateCommand: Command = {
  name: 'users update',
  usage: 'users update USER_ID [--email E] [--phone P] [--email-verified | --email-unverified] [--phone-verified | --phone-unverified]',
  async run(args, core) {
    const { id, values } = onePositional(
      args,
      {
        email: { type: 'string' },
        phone: { type: 'string' },
        'email-verified': { type: 'boolean' },
        'email-unverified': { type: 'boolean' },
        'phone-verified': { type: 'boolean' },
        'phone-unverified': { type: 'boolean' },
      },
      this.usage,
    );
    const flag = (yes: string, no: string): boolean | undefined => {
      if (values[yes] && values[no]) throw new UsageError(`--${yes} and --${no} exclude each other`);
      return values[yes] ? true : values[no] ? false : undefined;
    };
    const requested = { email_verified: flag('email-verified', 'email-unverified'), phone_number_verified: flag('phone-verified', 'phone-unverified') };
    const current = await asUsage(() => findUserRecord(core, id));
    const fields = {
      ...userFields(current),
      email: typeof values.email === 'string' ? values.email || null : current.email,
      phone_number: typeof values.phone === 'string' ? values.phone || null : current.phone_number,
      ...requested,
    };
    return userView(await asUsage(() => updateUserRecord(services(core), current, fields, { actor: cliActor() })));
  },
};

export const usersSetPasswordCommand: Command = {
  name: 'users set-password',
  usage: 'users set-password USER_ID --password P',
  async run(args, core) {
    const { id, values } = onePositional(args, { password: { type: 'string' } }, this.usage);
    await asUsage(() => setUserPassword(services(core), id, values.password as string | undefined, { actor: cliActor() }));
    return { id, password_changed: true, sessions_ended: true, refresh_tokens_revoked: true };
  },
};

export const usersDeleteCommand: Command = {
  name: 'users delete',
  usage: 'users delete USER_ID',
  async run(args, core) {
    const { id } = onePositional(args, {}, this.usage);
    // Their grants are revoked first; the cascade then takes the browser sessions and the grants.
    await asUsage(() => deleteUserRecord(services(core), id, { actor: cliActor() }));
    return { deleted: id };
  },
};
