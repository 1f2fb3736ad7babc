// The SQL of the self-service flows (src/self-service/, docs/email.md): accounts by e-mail address, and the
// sign-ups waiting for their address to be verified (migrations/0620_signup_requests.sql).
import type { Selectable } from 'kysely';
import type { Db } from '../driver/database.js';
import type { SignupRequestsTable } from '../driver/schema.js';

export interface SignupRequest {
  id: string;
  email: string;
  name: string | null;
  passwordHash: string;
  interactionId: string | null;
  locale: string;
  createdAt: Date;
  expiresAt: Date;
}

const toRequest = (r: Selectable<SignupRequestsTable>): SignupRequest => ({
  id: r.id,
  email: r.email,
  name: r.name,
  passwordHash: r.password_hash,
  interactionId: r.interaction_id,
  locale: r.locale,
  createdAt: r.created_at,
  expiresAt: r.expires_at,
});

/** At most this many accounts share one address (admins may give several accounts one); each gets its own mail. */
const ACCOUNTS_PER_ADDRESS = 5;

export interface SelfServiceRepository {
  /** Accounts whose address is `email` (case-insensitive), oldest first. */
  usersWithEmail(email: string): Promise<{ id: string }[]>;
  createSignup(input: Omit<SignupRequest, 'id'>): Promise<SignupRequest>;
  findSignup(id: string, now: Date): Promise<SignupRequest | undefined>;
  /** Sets the hash of the verification link's token (once: the job that writes the mail). */
  setSignupToken(id: string, tokenHash: string): Promise<boolean>;
  deleteSignup(id: string): Promise<void>;
  /** The request a link names if it has not expired; never redeems it (for showing the page). */
  findSignupByToken(tokenHash: string, now: Date): Promise<SignupRequest | undefined>;
  /** Deletes the request a link names and returns it: one DELETE, so of two parallel uses exactly one wins. */
  redeemSignup(tokenHash: string, now: Date): Promise<SignupRequest | undefined>;
  /** Deletes expired sign-ups (never verified); returns how many. */
  purgeExpiredSignups(now: Date): Promise<number>;
}

export function selfServiceRepository(db: Db): SelfServiceRepository {
  return {
    async usersWithEmail(email) {
      return db
        .selectFrom('users')
        .select('id')
        .where((eb) => eb(eb.fn('lower', ['email']), '=', email.toLowerCase()))
        .orderBy('created_at')
        .limit(ACCOUNTS_PER_ADDRESS)
        .execute();
    },
    async createSignup(input) {
      const row = await db
        .insertInto('signup_requests')
        .values({
          email: input.email,
          name: input.name,
          password_hash: input.passwordHash,
          interaction_id: input.interactionId,
          locale: input.locale,
          created_at: input.createdAt,
          expires_at: input.expiresAt,
        })
        .returningAll()
        .executeTakeFirstOrThrow();
      return toRequest(row);
    },
    async findSignup(id, now) {
      const row = await db.selectFrom('signup_requests').selectAll().where('id', '=', id).where('expires_at', '>', now).executeTakeFirst();
      return row ? toRequest(row) : undefined;
    },
    async setSignupToken(id, tokenHash) {
      const result = await db
        .updateTable('signup_requests')
        .set({ token_hash: tokenHash })
        .where('id', '=', id)
        .where('token_hash', 'is', null)
        .executeTakeFirst();
      return Number(result.numUpdatedRows) === 1;
    },
    async deleteSignup(id) {
      await db.deleteFrom('signup_requests').where('id', '=', id).execute();
    },
    async findSignupByToken(tokenHash, now) {
      const row = await db.selectFrom('signup_requests').selectAll().where('token_hash', '=', tokenHash).where('expires_at', '>', now).executeTakeFirst();
      return row ? toRequest(row) : undefined;
    },
    async redeemSignup(tokenHash, now) {
      const row = await db.deleteFrom('signup_requests').where('token_hash', '=', tokenHash).where('expires_at', '>', now).returningAll().executeTakeFirst();
      return row ? toRequest(row) : undefined;
    },
    async purgeExpiredSignups(now) {
      const result = await db.deleteFrom('signup_requests').where('expires_at', '<=', now).executeTakeFirst();
      return Number(result.numDeletedRows);
    },
  };
}
