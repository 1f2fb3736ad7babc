// Second factors of users (docs/second-factors.md): the TOTP authenticator (secret sealed by the caller),
// recovery codes (hashes only), the password-accepted-waiting-for-a-second-factor state of a browser
// session, and the amr of signed-in sessions. Every single-use rule is one conditional statement.
import type { Clock } from '../../clock.js';
import type { Db } from '../driver/database.js';
import type { IdentityAwaitingProof } from './upstream-sign-ins-repository.js';

/** An upstream sign-in's tokens, already sealed (src/federation/upstream-tokens.ts): opaque here. */
export type SealedTokensOfSignIn = NonNullable<IdentityAwaitingProof['tokens']>;

export interface TotpCredential {
  secretSealed: string;
  confirmed: boolean;
}

export interface PendingSecondFactor {
  userId: string;
  boundTo: string;
  /** The amr of the first factor when it was not the password (an upstream provider: ['fed']). */
  firstFactor?: readonly string[] | null;
  /**
   * --store-tokens: the upstream's tokens of that first factor, sealed, written to federated_identity_tokens only
   * when the sign-in completes (an abandoned second factor leaves none stored).
   */
  upstreamTokens?: SealedTokensOfSignIn | null;
}

export interface SignIn {
  amr: readonly string[];
  userAgent: string | undefined;
  ip: string;
}

export interface SecondFactorsRepository {
  findTotp(userId: string): Promise<TotpCredential | undefined>;
  /** Starts (or restarts) an enrollment; false when a confirmed authenticator exists (remove it first). */
  beginTotp(userId: string, secretSealed: string): Promise<boolean>;
  /** Confirms a pending enrollment with the step of its first code (which counts as used); false if none pending. */
  confirmTotp(userId: string, step: number): Promise<boolean>;
  /** Accepts `step` only if later than the last accepted one, atomically (no replay, even in parallel). */
  useTotpStep(userId: string, step: number): Promise<boolean>;
  removeTotp(userId: string): Promise<boolean>;
  /** Replaces every recovery code of the user with these hashes. */
  replaceRecoveryCodes(userId: string, hashes: readonly string[]): Promise<void>;
  /** Deletes the code with this hash; true only for the one request that deleted it. */
  useRecoveryCode(userId: string, hash: string): Promise<boolean>;
  countRecoveryCodes(userId: string): Promise<number>;
  /** Removes every second factor of the user (operator reset, last factor removed). */
  removeAll(userId: string): Promise<void>;
  setPending(sessionHash: string, pending: PendingSecondFactor, ttlSeconds: number): Promise<void>;
  findPending(sessionHash: string): Promise<PendingSecondFactor | undefined>;
  /** Single use: deletes and returns the live pending state of the session. */
  consumePending(sessionHash: string): Promise<PendingSecondFactor | undefined>;
  /**
   * Deletes the waits that expired: a sign-in abandoned at the second factor leaves its row (with the sealed
   * upstream tokens of a provider sign-in), which nothing else removes while the session lives.
   */
  purgeExpiredPending(): Promise<number>;
  /** How a session signed in (RFC 8176 amr) and from where, for tokens and the account page. */
  recordSignIn(sessionHash: string, signIn: SignIn): Promise<void>;
  findAmr(sessionHash: string): Promise<string[] | undefined>;
  /**
   * The amr of the sign-in a code or device approval carries: the session by its sid (which outlives a
   * re-login), and only while it still holds that sign-in (auth_time), not a later one's.
   */
  findAmrOfSignIn(sid: string, authTime: Date): Promise<string[] | undefined>;
  /** The session proved the account again now (re-authentication on /account). */
  recordProof(sessionHash: string): Promise<void>;
  /** The session bound a new second factor (its amr stays as it was). */
  markBoundFactor(sessionHash: string): Promise<void>;
  findSessionProof(sessionHash: string): Promise<SessionProof | undefined>;
}

export interface SessionProof {
  amr: string[];
  /** The latest re-authentication, if any. */
  provedAt: Date | null;
  boundFactor: boolean;
}

export function secondFactorsRepository(db: Db, clock: Clock): SecondFactorsRepository {
  const now = () => new Date(clock.now());
  return {
    async findTotp(userId) {
      const row = await db.selectFrom('totp_credentials').select(['secret_sealed', 'confirmed_at']).where('user_id', '=', userId).executeTakeFirst();
      return row && { secretSealed: row.secret_sealed, confirmed: row.confirmed_at !== null };
    },
    async beginTotp(userId, secretSealed) {
      const result = await db
        .insertInto('totp_credentials')
        .values({ user_id: userId, secret_sealed: secretSealed, confirmed_at: null, last_used_step: null, created_at: now() })
        .onConflict((oc) =>
          oc.column('user_id').doUpdateSet({ secret_sealed: secretSealed, created_at: now() }).where('totp_credentials.confirmed_at', 'is', null),
        )
        .executeTakeFirst();
      return Number(result.numInsertedOrUpdatedRows ?? 0n) > 0;
    },
    async confirmTotp(userId, step) {
      const result = await db
        .updateTable('totp_credentials')
        .set({ confirmed_at: now(), last_used_step: step })
        .where('user_id', '=', userId)
        .where('confirmed_at', 'is', null)
        .executeTakeFirst();
      return Number(result.numUpdatedRows) > 0;
    },
    async useTotpStep(userId, step) {
      const result = await db
        .updateTable('totp_credentials')
        .set({ last_used_step: step })
        .where('user_id', '=', userId)
        .where('confirmed_at', 'is not', null)
        .where((eb) => eb.or([eb('last_used_step', 'is', null), eb('last_used_step', '<', step)]))
        .executeTakeFirst();
      return Number(result.numUpdatedRows) > 0;
    },
    async removeTotp(userId) {
      const result = await db.deleteFrom('totp_credentials').where('user_id', '=', userId).executeTakeFirst();
      return Number(result.numDeletedRows) > 0;
    },
    async replaceRecoveryCodes(userId, hashes) {
      await db.transaction().execute(async (trx) => {
        await trx.deleteFrom('recovery_codes').where('user_id', '=', userId).execute();
        if (hashes.length > 0)
          await trx
            .insertInto('recovery_codes')
            .values(hashes.map((code_hash) => ({ user_id: userId, code_hash, created_at: now() })))
            .execute();
      });
    },
    async useRecoveryCode(userId, hash) {
      const result = await db.deleteFrom('recovery_codes').where('user_id', '=', userId).where('code_hash', '=', hash).executeTakeFirst();
      return Number(result.numDeletedRows) > 0;
    },
    async countRecoveryCodes(userId) {
      const row = await db
        .selectFrom('recovery_codes')
        .select((eb) => eb.fn.countAll<string>().as('n'))
        .where('user_id', '=', userId)
        .executeTakeFirst();
      return Number(row?.n ?? 0);
    },
    async removeAll(userId) {
      const run = async (trx: Db) => {
        await trx.deleteFrom('totp_credentials').where('user_id', '=', userId).execute();
        await trx.deleteFrom('recovery_codes').where('user_id', '=', userId).execute();
        // A reset of the factors (the operator's reset-mfa, the owner removing the app) clears the account-wide count.
        await trx.deleteFrom('second_factor_failures').where('user_id', '=', userId).execute();
        // And the link page's count: its guesses were against the authenticator now gone.
        await trx.deleteFrom('link_proof_failures').where('user_id', '=', userId).execute();
      };
      // In the caller's transaction when there is one (the operator's reset commits with its audit event).
      await (db.isTransaction ? run(db) : db.transaction().execute(run));
    },
    async setPending(sessionHash, { userId, boundTo, firstFactor, upstreamTokens }, ttlSeconds) {
      const expiresAt = new Date(clock.now() + ttlSeconds * 1000);
      const first_factor = firstFactor ? [...firstFactor] : null;
      const upstream_tokens = upstreamTokens ? JSON.stringify(upstreamTokens) : null;
      const values = { user_id: userId, bound_to: boundTo, expires_at: expiresAt, first_factor, upstream_tokens };
      await db
        .insertInto('pending_second_factors')
        .values({ session_hash: sessionHash, ...values })
        .onConflict((oc) => oc.column('session_hash').doUpdateSet(values))
        .execute();
    },
    async findPending(sessionHash) {
      const row = await db
        .selectFrom('pending_second_factors')
        .select(['user_id', 'bound_to'])
        .where('session_hash', '=', sessionHash)
        .where('expires_at', '>', now())
        .executeTakeFirst();
      return row && { userId: row.user_id, boundTo: row.bound_to };
    },
    async purgeExpiredPending() {
      const result = await db.deleteFrom('pending_second_factors').where('expires_at', '<=', now()).executeTakeFirst();
      return Number(result.numDeletedRows);
    },
    async consumePending(sessionHash) {
      const row = await db
        .deleteFrom('pending_second_factors')
        .where('session_hash', '=', sessionHash)
        .where('expires_at', '>', now())
        .returning(['user_id', 'bound_to', 'first_factor', 'upstream_tokens'])
        .executeTakeFirst();
      return (
        row && {
          userId: row.user_id,
          boundTo: row.bound_to,
          firstFactor: row.first_factor,
          upstreamTokens: (row.upstream_tokens as SealedTokensOfSignIn | null) ?? null,
        }
      );
    },
    async recordSignIn(sessionHash, { amr, userAgent, ip }) {
      // Bounded and storable (PostgreSQL text cannot hold U+0000): the header is the client's to choose.
      const values = { amr: [...amr], user_agent: userAgent?.replace(/\u0000/g, '').slice(0, 300) ?? null, ip_address: ip.slice(0, 64), signed_in_at: now() };
      await db
        .insertInto('session_authentications')
        .values({ session_hash: sessionHash, ...values })
        .onConflict((oc) => oc.column('session_hash').doUpdateSet(values))
        .execute();
    },
    async recordProof(sessionHash) {
      await db.updateTable('session_authentications').set({ proved_at: now() }).where('session_hash', '=', sessionHash).execute();
    },
    async markBoundFactor(sessionHash) {
      await db.updateTable('session_authentications').set({ bound_factor: true }).where('session_hash', '=', sessionHash).execute();
    },
    async findSessionProof(sessionHash) {
      const row = await db
        .selectFrom('session_authentications')
        .select(['amr', 'proved_at', 'bound_factor'])
        .where('session_hash', '=', sessionHash)
        .executeTakeFirst();
      return row && { amr: row.amr, provedAt: row.proved_at, boundFactor: row.bound_factor };
    },
    async findAmrOfSignIn(sid, authTime) {
      const row = await db
        .selectFrom('session_authentications as a')
        .innerJoin('browser_sessions as s', 's.id_hash', 'a.session_hash')
        .select('a.amr')
        .where('s.sid', '=', sid)
        .where('s.auth_time', '=', authTime)
        .executeTakeFirst();
      return row?.amr;
    },
    async findAmr(sessionHash) {
      const row = await db.selectFrom('session_authentications').select('amr').where('session_hash', '=', sessionHash).executeTakeFirst();
      return row?.amr;
    },
  };
}
