// The ways an account can sign in: a password, passkeys, links to upstream identity providers. An account
// created from an upstream sign-in (federation) has no password: its stored hash is a marker no password
// verifies against (argon2 refuses to parse it), never an empty string. The rule every face shares: the
// last way in is never removed — an unlink of a provider, or the removal of a passkey, that would leave none
// is refused (docs/federation.md). A TOTP authenticator is not a way in on its own (it is a second factor),
// so it does not count.
import type { User } from '../storage/repositories/users-repository.js';

/** The password_hash of an account that has no password. Not an argon2 string: nothing verifies against it. */
export const NO_PASSWORD_HASH = '!no-password';

export const hasPassword = (user: Pick<User, 'passwordHash'>): boolean => user.passwordHash.startsWith('$');

export interface SignInWays {
  password: boolean;
  passkeys: number;
  /** Providers linked. */
  links: number;
}

/** Whether removing one linked provider still leaves a way to sign in. */
export const mayUnlinkOne = (ways: SignInWays): boolean => ways.password || ways.passkeys > 0 || ways.links > 1;

/** Whether removing one passkey still leaves a way to sign in. */
export const mayRemovePasskey = (ways: SignInWays): boolean => ways.password || ways.passkeys > 1 || ways.links > 0;
