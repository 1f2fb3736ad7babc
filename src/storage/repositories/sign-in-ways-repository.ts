// The ways into an account (password, passkeys, upstream links) read under a lock on the user's row, and the
// removal of one of them: src/user-rules/unlink-provider.ts checks "never the last way in" between the two,
// in one transaction, so two parallel removals of an account's last two ways cannot both pass the check.
import type { Db } from '../driver/database.js';

export interface LockedWays {
  passwordHash: string;
  linkedProviders: string[];
  passkeyIds: string[];
}

export interface SignInWaysRepository {
  /** Holds the user's row for the rest of the transaction; undefined when there is no such user. */
  lockedWays(userId: string): Promise<LockedWays | undefined>;
  removeLink(userId: string, providerId: string): Promise<void>;
  removePasskey(userId: string, credentialId: string): Promise<void>;
}

export function signInWaysRepository(db: Db): SignInWaysRepository {
  return {
    async lockedWays(userId) {
      const user = await db.selectFrom('users').select(['id', 'password_hash']).where('id', '=', userId).forUpdate().executeTakeFirst();
      if (!user) return undefined;
      const links = await db.selectFrom('federated_identities').select('provider_id').where('user_id', '=', user.id).execute();
      const passkeys = await db.selectFrom('passkey_credentials').select('credential_id').where('user_id', '=', user.id).execute();
      return { passwordHash: user.password_hash, linkedProviders: links.map((l) => l.provider_id), passkeyIds: passkeys.map((p) => p.credential_id) };
    },
    async removeLink(userId, providerId) {
      await db.deleteFrom('federated_identities').where('user_id', '=', userId).where('provider_id', '=', providerId).execute();
    },
    async removePasskey(userId, credentialId) {
      await db.deleteFrom('passkey_credentials').where('user_id', '=', userId).where('credential_id', '=', credentialId).execute();
    },
  };
}
