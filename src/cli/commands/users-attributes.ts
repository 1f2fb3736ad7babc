// `gatehouse users set-attribute USER NAME VALUE [--delete]` and `users delete-attribute USER NAME`: a user's
// custom attributes, which registered scopes map into tokens (docs/resource-servers.md, "Claims"). The rules
// live in src/admin-services/user-attributes.ts, shared with the admin API.
import { parseArgs } from 'node:util';
import { AdminRuleError } from '../../admin-services/rule-error.js';
import { deleteUserAttribute, parseAttributeValue, setUserAttribute } from '../../admin-services/user-attributes.js';
import { cliActor } from '../../admin-services/index.js';
import type { CliDeps } from '../deps.js';
import { UsageError, type Command } from '../command.js';

async function findUser(core: CliDeps, idOrUsername: string) {
  const users = core.store.users;
  const user = (await users.findById(idOrUsername)) ?? (await users.findByUsername(idOrUsername));
  if (!user) throw new UsageError(`no user ${JSON.stringify(idOrUsername.slice(0, 200))}`);
  return user;
}

/** The service's rule errors, as usage errors naming the argument at fault. */
async function asUsage<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof AdminRuleError)
      throw new UsageError(`${error.field === 'name' ? 'NAME' : error.field === 'value' ? 'VALUE' : 'USER'}: ${error.message}`);
    throw error;
  }
}

async function removeAttribute(core: CliDeps, idOrUsername: string, name: string) {
  const user = await findUser(core, idOrUsername);
  await asUsage(() => deleteUserAttribute(core, user.id, name, { actor: cliActor() }));
  return { id: user.id, deleted: name };
}

const SET_USAGE =
  'users set-attribute USER_ID_OR_USERNAME NAME VALUE | users set-attribute USER NAME --delete  ' +
  '(VALUE is JSON: 42, true, \'"text"\', \'["a","b"]\', \'{"k":1}\'; a VALUE that is not valid JSON is taken as a string)';

export const usersSetAttributeCommand: Command = {
  name: 'users set-attribute',
  usage: SET_USAGE,
  async run(args, core) {
    const { values, positionals } = parseArgs({ args, options: { delete: { type: 'boolean' } }, strict: true, allowPositionals: true });
    if (values.delete) {
      if (positionals.length !== 2) throw new UsageError(`usage: gatehouse ${SET_USAGE}`);
      return removeAttribute(core, positionals[0]!, positionals[1]!);
    }
    if (positionals.length !== 3) throw new UsageError(`usage: gatehouse ${SET_USAGE}`);
    const [who, name, raw] = positionals as [string, string, string];
    const user = await findUser(core, who);
    const attributes = await asUsage(() => setUserAttribute(core, user.id, name, parseAttributeValue(raw), { actor: cliActor() }));
    return { id: user.id, attributes };
  },
};

export const usersDeleteAttributeCommand: Command = {
  name: 'users delete-attribute',
  usage: 'users delete-attribute USER_ID_OR_USERNAME NAME',
  async run(args, core) {
    const { positionals } = parseArgs({ args, options: {}, strict: true, allowPositionals: true });
    if (positionals.length !== 2) throw new UsageError(`usage: gatehouse ${this.usage}`);
    return removeAttribute(core, positionals[0]!, positionals[1]!);
  },
};
