// Federated identities: (provider, upstream subject) → one local user (migrations/0500_identity_providers.sql).
// A link is made once (the primary key and the one-per-provider-per-user constraint decide races).
import type { Db } from '../driver/database.js';

export interface FederatedIdentity {
  providerId: string;
  subject: string;
  userId: string;
  email: string | null;
  createdAt: Date;
  lastUsedAt: Date | null;
}

export type LinkResult = 'linked' | 'subject-taken' | 'user-has-one';

export interface FederatedIdentitiesRepository {
  find(providerId: string, subject: string): Promise<FederatedIdentity | undefined>;
  forUser(userId: string): Promise<FederatedIdentity[]>;
  /** Links, unless the upstream subject is linked already or the user already has an identity at this provider. */
  link(identity: { providerId: string; subject: string; userId: string; email: string | null }, now: Date): Promise<LinkResult>;
  /** Records a sign-in (and the e-mail the upstream asserted this time). */
  touch(providerId: string, subject: string, email: string | null, now: Date): Promise<void>;
  unlink(providerId: string, userId: string): Promise<boolean>;
}

const fromRow = (r: {
  provider_id: string;
  subject: string;
  user_id: string;
  email: string | null;
  created_at: Date;
  last_used_at: Date | null;
}): FederatedIdentity => ({
  providerId: r.provider_id,
  subject: r.subject,
  userId: r.user_id,
  email: r.email,
  createdAt: r.created_at,
  lastUsedAt: r.last_used_at,
});

export function federatedIdentitiesRepository(db: Db): FederatedIdentitiesRepository {
  return {
    async find(providerId, subject) {
      const row = await db
        .selectFrom('federated_identities')
        .selectAll()
        .where('provider_id', '=', providerId)
        .where('subject', '=', subject)
        .executeTakeFirst();
      return row ? fromRow(row) : undefined;
    },
    async forUser(userId) {
      return (await db.selectFrom('federated_identities').selectAll().where('user_id', '=', userId).orderBy('created_at').execute()).map(fromRow);
    },
    async link({ providerId, subject, userId, email }, now) {
      const row = await db
        .insertInto('federated_identities')
        .values({ provider_id: providerId, subject, user_id: userId, email, created_at: now, last_used_at: now })
        .onConflict((oc) => oc.doNothing())
        .returning('subject')
        .executeTakeFirst();
      if (row) return 'linked';
      return (await this.find(providerId, subject)) ? 'subject-taken' : 'user-has-one';
    },
    async touch(providerId, subject, email, now) {
      await db
        .updateTable('federated_identities')
        .set({ email, last_used_at: now })
        .where('provider_id', '=', providerId)
        .where('subject', '=', subject)
        .execute();
    },
    async unlink(providerId, userId) {
      const row = await db
        .deleteFrom('federated_identities')
        .where('provider_id', '=', providerId)
        .where('user_id', '=', userId)
        .returning('subject')
        .executeTakeFirst();
      return row !== undefined;
    },
  };
}
