// The one way tests create users: straight through the repository, with a real argon2id hash when the test
// logs in through the password form, a fixed non-verifiable hash (no hashing cost) when it never does.
import { randomUUID } from 'node:crypto';
import type { Clock } from '../../src/clock.js';
import { hashPassword } from '../../src/crypto/passwords.js';
import type { Db } from '../../src/storage/driver/database.js';
import { usersRepository, type User, type UserProfile } from '../../src/storage/repositories/users-repository.js';

export const PASSWORD = 'correct horse battery staple';

/** Every standard claim filled in, for tests of id_token, userinfo and scopes. */
export const fullProfile: Partial<UserProfile> = {
  name: 'Ada Lovelace',
  given_name: 'Ada',
  family_name: 'Lovelace',
  email: 'ada@example.com',
  email_verified: true,
  phone_number: '+44 20 7946 0000',
  phone_number_verified: false,
  address: { street_address: '12 St James Square', locality: 'London', postal_code: 'SW1Y 4JH', country: 'GB' },
};

export interface TestUserOptions {
  username?: string;
  /** Set to log in through the form (PASSWORD is the usual one). */
  password?: string;
  profile?: Partial<UserProfile>;
}

/** A user who signs in through the pages: PASSWORD and only a name. */
export const SIGN_IN: TestUserOptions = { password: PASSWORD, profile: { name: 'Test User' } };

export async function createUser(db: Db, clock: Clock, options: TestUserOptions = {}): Promise<User> {
  const { username = `user-${randomUUID()}`, password, profile = fullProfile } = options;
  const passwordHash = password === undefined ? 'not-a-password-hash' : await hashPassword(password);
  return usersRepository(db, clock).create({ username, passwordHash, ...profile });
}
