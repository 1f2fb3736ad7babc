import { parseArgs } from 'node:util';
import { hashPassword } from '../../crypto/passwords.js';
import { usersRepository, UsernameTakenError } from '../../storage/users-repository.js';
import { UsageError, type Command } from '../command.js';

export const usersCreateCommand: Command = {
  name: 'users create',
  usage: 'users create --username U --password P [--email E] [--name N] [--given-name G] [--family-name F] [--phone P] [--email-verified]',
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
      },
      strict: true,
    });
    if (!values.username || !/^[A-Za-z0-9._@+-]{1,64}$/.test(values.username)) {
      throw new UsageError('--username is required: 1-64 characters of letters, digits and . _ @ + -');
    }
    if (!values.password || values.password.length < 8) throw new UsageError('--password is required (at least 8 characters)');
    try {
      const user = await usersRepository(core.db, core.clock).create({
        username: values.username,
        passwordHash: await hashPassword(values.password),
        name: values.name ?? null,
        given_name: values['given-name'] ?? null,
        family_name: values['family-name'] ?? null,
        email: values.email ?? null,
        email_verified: values['email-verified'] ?? false,
        phone_number: values.phone ?? null,
      });
      return { id: user.id, username: user.username };
    } catch (error) {
      if (error instanceof UsernameTakenError) throw new UsageError(error.message);
      throw error;
    }
  },
};
