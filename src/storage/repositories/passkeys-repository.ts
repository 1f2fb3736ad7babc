// Passkeys (WebAuthn credentials) of users and the outstanding challenges of their ceremonies
// (docs/second-factors.md). Every single-use rule is one conditional statement: a challenge is deleted by
// the statement that uses it, and a signature counter only moves forward.
import type { Clock } from '../../clock.js';
import type { Db } from '../driver/database.js';

export interface PasskeyCredential {
  credentialId: string;
  userId: string;
  /** The COSE public key, base64url. */
  publicKey: string;
  signCount: number;
  transports: string[];
  /** 'singleDevice' (bound to one authenticator) or 'multiDevice' (synced), as the authenticator reported. */
  deviceType: string;
  name: string;
  createdAt: Date;
  lastUsedAt: Date | null;
}

export type NewPasskey = Omit<PasskeyCredential, 'createdAt' | 'lastUsedAt'>;

export type ChallengePurpose = 'register' | 'authenticate';

export interface IssuedChallenge {
  challenge: string;
  boundTo: string;
  purpose: ChallengePurpose;
  /** The user a registration or a second-factor assertion is for; absent for a passwordless sign-in. */
  userId: string | undefined;
}

export interface PasskeysRepository {
  list(userId: string): Promise<PasskeyCredential[]>;
  count(userId: string): Promise<number>;
  find(credentialId: string): Promise<PasskeyCredential | undefined>;
  /** false when the credential id is already registered (to anyone). */
  add(passkey: NewPasskey): Promise<boolean>;
  /** Scoped to the user: another user's credential id matches nothing. */
  remove(userId: string, credentialId: string): Promise<boolean>;
  removeAll(userId: string): Promise<void>;
  /**
   * Records a use: the counter moves to `signCount` only if it grows, or stays 0 when both are 0
   * (WebAuthn 6.1.1). false when a parallel use already moved it (the assertion is then refused).
   */
  recordUse(credentialId: string, previous: number, signCount: number): Promise<boolean>;
  /** Stores the flow's challenge for this purpose, replacing an older one. */
  issueChallenge(challenge: IssuedChallenge, ttlSeconds: number): Promise<void>;
  /** Single use: deletes the live challenge if it is this flow's for this purpose, and returns it. */
  consumeChallenge(challenge: string, boundTo: string, purpose: ChallengePurpose): Promise<IssuedChallenge | undefined>;
  purgeExpiredChallenges(): Promise<number>;
}

type Row = {
  credential_id: string;
  user_id: string;
  public_key: string;
  sign_count: number | string;
  transports: string[];
  device_type: string;
  name: string;
  created_at: Date;
  last_used_at: Date | null;
};

const toPasskey = (row: Row): PasskeyCredential => ({
  credentialId: row.credential_id,
  userId: row.user_id,
  publicKey: row.public_key,
  signCount: Number(row.sign_count),
  transports: row.transports,
  deviceType: row.device_type,
  name: row.name,
  createdAt: row.created_at,
  lastUsedAt: row.last_used_at,
});

const COLUMNS = ['credential_id', 'user_id', 'public_key', 'sign_count', 'transports', 'device_type', 'name', 'created_at', 'last_used_at'] as const;

export function passkeysRepository(db: Db, clock: Clock): PasskeysRepository {
  const now = () => new Date(clock.now());
  return {
    async list(userId) {
      const rows = await db
        .selectFrom('passkey_credentials')
        .select(COLUMNS)
        .where('user_id', '=', userId)
        .orderBy('created_at')
        .orderBy('credential_id')
        .execute();
      return rows.map(toPasskey);
    },
    async count(userId) {
      const row = await db
        .selectFrom('passkey_credentials')
        .select((eb) => eb.fn.countAll<string>().as('n'))
        .where('user_id', '=', userId)
        .executeTakeFirst();
      return Number(row?.n ?? 0);
    },
    async find(credentialId) {
      const row = await db.selectFrom('passkey_credentials').select(COLUMNS).where('credential_id', '=', credentialId).executeTakeFirst();
      return row && toPasskey(row);
    },
    async add(passkey) {
      const result = await db
        .insertInto('passkey_credentials')
        .values({
          credential_id: passkey.credentialId,
          user_id: passkey.userId,
          public_key: passkey.publicKey,
          sign_count: passkey.signCount,
          transports: passkey.transports,
          device_type: passkey.deviceType,
          name: passkey.name,
          created_at: now(),
          last_used_at: null,
        })
        .onConflict((oc) => oc.column('credential_id').doNothing())
        .executeTakeFirst();
      return Number(result.numInsertedOrUpdatedRows ?? 0n) > 0;
    },
    async remove(userId, credentialId) {
      const result = await db.deleteFrom('passkey_credentials').where('user_id', '=', userId).where('credential_id', '=', credentialId).executeTakeFirst();
      return Number(result.numDeletedRows) > 0;
    },
    async removeAll(userId) {
      await db.deleteFrom('passkey_credentials').where('user_id', '=', userId).execute();
    },
    async recordUse(credentialId, previous, signCount) {
      const result = await db
        .updateTable('passkey_credentials')
        .set({ sign_count: signCount, last_used_at: now() })
        .where('credential_id', '=', credentialId)
        .where('sign_count', '=', previous)
        .where((eb) => (signCount === 0 ? eb('sign_count', '=', 0) : eb('sign_count', '<', signCount)))
        .executeTakeFirst();
      return Number(result.numUpdatedRows) > 0;
    },
    async issueChallenge({ challenge, boundTo, purpose, userId }, ttlSeconds) {
      const values = { challenge, user_id: userId ?? null, expires_at: new Date(clock.now() + ttlSeconds * 1000) };
      await db
        .insertInto('webauthn_challenges')
        .values({ bound_to: boundTo, purpose, ...values })
        .onConflict((oc) => oc.columns(['bound_to', 'purpose']).doUpdateSet(values))
        .execute();
    },
    async consumeChallenge(challenge, boundTo, purpose) {
      const row = await db
        .deleteFrom('webauthn_challenges')
        .where('challenge', '=', challenge)
        .where('bound_to', '=', boundTo)
        .where('purpose', '=', purpose)
        .where('expires_at', '>', now())
        .returning(['challenge', 'bound_to', 'purpose', 'user_id'])
        .executeTakeFirst();
      return row && { challenge: row.challenge, boundTo: row.bound_to, purpose: row.purpose as ChallengePurpose, userId: row.user_id ?? undefined };
    },
    async purgeExpiredChallenges() {
      const result = await db.deleteFrom('webauthn_challenges').where('expires_at', '<=', now()).executeTakeFirst();
      return Number(result.numDeletedRows);
    },
  };
}
