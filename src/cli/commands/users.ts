// `gatehouse users create|list|update|set-password|delete`: the operator's side of the accounts. Only here
// may a verified flag be raised (accounts/verified-claims.ts); a password change goes through the same rule
// as the API and so ends the user's sessions and refresh tokens; delete ends them by the cascade.
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { hashPassword } from '../../crypto/passwords.js';
import { usersRepository, UsernameTakenError, type User } from '../../storage/users-repository.js';
import { changePassword } from '../../accounts/password-change.js';
import { verifiedAfterWrite } from '../../accounts/verified-claims.js';
import { UsageError, type Command } from '../command.js';

const USERNAME = /^[A-Za-z0-9._@+-]{1,64}$/;
const MIN_PASSWORD = 8;

function checkPassword(password: string | undefined): string {
  if (!password || password.length < MIN_PASSWORD) throw new UsageError(`--password is required (at least ${MIN_PASSWORD} characters)`);
  return password;
}

/** The operator's view of an account: the profile, never the hash. */
const userView = (u: User) => ({
  id: u.id,
  username: u.username,
  name: u.name,
  email: u.email,
  email_verified: u.email_verified,
  phone_number: u.phone_number,
  phone_number_verified: u.phone_number_verified,
  created_at: u.createdAt.toISOString(),
  updated_at: u.updatedAt.toISOString(),
});

function onePositional(args: string[], options: ParseArgsConfig['options'], usage: string) {
  const parsed = parseArgs({ args, options: options ?? {}, strict: true, allowPositionals: true });
  if (parsed.positionals.length !== 1) throw new UsageError(`usage: gatehouse ${usage}`);
  return { id: parsed.positionals[0]!, values: parsed.values as Record<string, string | boolean | undefined> };
}

async function existing(core: Parameters<Command['run']>[1], id: string): Promise<User> {
  const user = await usersRepository(core.db, core.clock).findById(id);
  if (!user) throw new UsageError(`no user ${id}`);
  return user;
}

export const usersCreateCommand: Command = {
  name: 'users create',
  usage:
    'users create --username U --password P [--email E] [--name N] [--given-name G] [--family-name F] [--phone P] [--email-verified] [--phone-verified]',
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
    if (!values.username || !USERNAME.test(values.username)) {
      throw new UsageError('--username is required: 1-64 characters of letters, digits and . _ @ + -');
    }
    const password = checkPassword(values.password);
    const contact = { email: values.email ?? null, phone_number: values.phone ?? null };
    const verified = verifiedAfterWrite('operator', undefined, contact, {
      email_verified: values['email-verified'] ?? false,
      phone_number_verified: values['phone-verified'] ?? false,
    });
    if (verified.errors.length > 0) throw new UsageError(verified.errors.map((e) => `--${e.field.replace(/_/g, '-')} ${e.message}`).join('; '));
    try {
      const user = await usersRepository(core.db, core.clock).create({
        username: values.username,
        passwordHash: await hashPassword(password),
        name: values.name ?? null,
        given_name: values['given-name'] ?? null,
        family_name: values['family-name'] ?? null,
        ...contact,
        ...verified.flags,
      });
      return { id: user.id, username: user.username };
    } catch (error) {
      if (error instanceof UsernameTakenError) throw new UsageError(error.message);
      throw error;
    }
  },
};

export const usersListCommand: Command = {
  name: 'users list',
  usage: 'users list',
  async run(args, core) {
    parseArgs({ args, options: {}, strict: true });
    return { users: (await usersRepository(core.db, core.clock).list()).map(userView) };
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
    const current = await existing(core, id);
    const contact = {
      email: typeof values.email === 'string' ? values.email || null : current.email,
      phone_number: typeof values.phone === 'string' ? values.phone || null : current.phone_number,
    };
    const verified = verifiedAfterWrite('operator', current, contact, requested);
    if (verified.errors.length > 0) throw new UsageError(verified.errors.map((e) => `${e.field} ${e.message}`).join('; '));
    const updated = await usersRepository(core.db, core.clock).update(id, { ...contact, ...verified.flags });
    if (!updated) throw new UsageError(`no user ${id}`);
    return userView(updated);
  },
};

export const usersSetPasswordCommand: Command = {
  name: 'users set-password',
  usage: 'users set-password USER_ID --password P',
  async run(args, core) {
    const { id, values } = onePositional(args, { password: { type: 'string' } }, this.usage);
    const password = checkPassword(values.password as string | undefined);
    const user = await existing(core, id);
    const deps = { db: core.db, clock: core.clock, rateLimits: core.rateLimits };
    if (!(await changePassword(deps, { user, password, authority: { by: 'operator' } }))) throw new UsageError(`no user ${id}`);
    return { id, password_changed: true, sessions_ended: true, refresh_tokens_revoked: true };
  },
};

export const usersDeleteCommand: Command = {
  name: 'users delete',
  usage: 'users delete USER_ID',
  async run(args, core) {
    const { id } = onePositional(args, {}, this.usage);
    try {
      // Their grants are revoked first; the cascade then takes the browser sessions and the grants.
      if (!(await usersRepository(core.db, core.clock).delete(id))) throw new UsageError(`no user ${id}`);
    } catch (error) {
      if ((error as { code?: string })?.code === '23503') throw new UsageError(`user ${id} still owns records (orders, payments) that must be removed first`);
      throw error;
    }
    return { deleted: id };
  },
};
