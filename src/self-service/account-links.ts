// Single-use links to an existing account (password reset, e-mail change), on the account_tokens table the
// invitations use (src/storage/repositories/account-tokens-repository.ts): 256 random bits, only the SHA-256 stored,
// bound to the purpose and the account, expiring, redeemed by one UPDATE, and void once the account's
// password or address changed (the token keeps a digest of the password hash and the address).
import { randomToken, sha256 } from '../crypto/random.js';
import type { AccountToken, AccountTokenPurpose } from '../storage/repositories/account-tokens-repository.js';
import type { Store } from '../storage/store.js';
import type { User } from '../storage/repositories/users-repository.js';

/** What the link was issued under: the password hash and the current address (same digest as invitations'). */
const stateFingerprint = (user: Pick<User, 'passwordHash' | 'email'>) => sha256(`password:${user.passwordHash}\u0000email:${user.email ?? ''}`);

/**
 * Issues a link token in `tx`; returns the token (for the sealed mail only). `email`: where the link goes
 * (the account's address, or for an e-mail change the new one).
 */
export async function issueAccountLink(
  tx: Store,
  input: { purpose: AccountTokenPurpose; user: User; email: string; now: number; ttlSeconds: number },
): Promise<{ token: string; issued: AccountToken }> {
  const token = randomToken();
  const issued = await tx.accountTokens.issue({
    purpose: input.purpose,
    userId: input.user.id,
    tokenHash: sha256(token),
    email: input.email,
    passwordFingerprint: stateFingerprint(input.user),
    now: new Date(input.now),
    expiresAt: new Date(input.now + input.ttlSeconds * 1000),
  });
  return { token, issued };
}

/** The link was issued under this password and this address: either changed since, and it is void. */
export const linkStillFor = (token: AccountToken, user: User) => token.passwordFingerprint === stateFingerprint(user);

export const plausibleToken = (token: string) => token.length > 0 && token.length <= 200;
