// Storage of authorization codes, keyed by SHA-256 of the code. Redemption is one statement that consumes
// the code, creates its grant, records the access token about to be signed, starts the refresh-token
// family when one is due and reads the user — one round trip per exchange. Exactly one of any number of
// parallel redemptions wins, and a later second use always finds the grant to revoke (RFC 6749 4.1.2).
// A code bound to a DPoP key (RFC 9449 10) is consumed only by a request proving that key; any other
// request leaves it unspent, so whoever stole it cannot burn it for the client. The first refresh token
// carries the key of the redeeming proof (RFC 9449 5). The grant keeps the sign-in's amr (read from its
// browser session's record), so tokens issued on refresh state the original authentication.
import { sql, type Selectable } from 'kysely';
import type { Clock } from '../../clock.js';
import type { Db } from '../driver/database.js';
import { redeemIntoGrant, type GrantRedemptionWrites } from './grant-redemption.js';
import { precompiled } from './precompiled.js';
import type { AuthorizationCodesTable } from '../driver/schema.js';
import { userFromJoin, type UserRecord } from './users-repository.js';

export interface StoredCode {
  grantId: string;
  clientId: string;
  userId: string;
  redirectUri: string;
  codeChallenge: string;
  scope: string[];
  nonce: string | null;
  authTime: Date;
  sessionId: string | null;
  resource: string | null;
  dpopJkt: string | null;
  expiresAt: Date;
  redeemedAt: Date | null;
}

/** What the redemption statement creates besides the grant (storage/grant-redemption.ts). */
export type RedemptionWrites = GrantRedemptionWrites;

export interface ConsumedCode {
  code: StoredCode;
  user: UserRecord | null;
  refreshIssued: boolean;
}

export interface AuthorizationCodesRepository {
  insert(codeHash: string, code: Omit<StoredCode, 'redeemedAt'>): Promise<void>;
  /** Atomically marks the code redeemed by `clientId` and creates its grant; undefined when it was not redeemable. */
  consume(codeHash: string, clientId: string, writes: RedemptionWrites): Promise<ConsumedCode | undefined>;
  find(codeHash: string): Promise<StoredCode | undefined>;
  /** Deletes the user's codes not yet redeemed (their access ends); redeemed ones stay for reuse detection. */
  discardUnredeemedOf(userId: string): Promise<number>;
  /**
   * Deletes expired codes that were never redeemed, and redeemed ones whose grant is gone (a second use
   * must find the grant to revoke for as long as it exists); returns how many.
   */
  purgeExpired(): Promise<number>;
}

/** `select *` of authorization_codes, typed from the generated schema. */
type CodeRow = Selectable<AuthorizationCodesTable>;

const toCode = (r: CodeRow): StoredCode => ({
  grantId: r.grant_id,
  clientId: r.client_id,
  userId: r.user_id,
  redirectUri: r.redirect_uri,
  codeChallenge: r.code_challenge,
  scope: r.scope,
  nonce: r.nonce,
  authTime: r.auth_time,
  sessionId: r.session_id,
  resource: r.resource,
  dpopJkt: r.dpop_jkt,
  expiresAt: r.expires_at,
  redeemedAt: r.redeemed_at,
});

const insertCode = precompiled((db, v: Omit<StoredCode, 'redeemedAt'> & { codeHash: string; createdAt: Date }) =>
  db.insertInto('authorization_codes').values({
    code_hash: v.codeHash,
    grant_id: v.grantId,
    client_id: v.clientId,
    user_id: v.userId,
    redirect_uri: v.redirectUri,
    code_challenge: v.codeChallenge,
    scope: v.scope,
    nonce: v.nonce,
    auth_time: v.authTime,
    session_id: v.sessionId,
    resource: v.resource,
    dpop_jkt: v.dpopJkt,
    created_at: v.createdAt,
    expires_at: v.expiresAt,
  }),
);

export function authorizationCodesRepository(db: Db, clock: Clock): AuthorizationCodesRepository {
  return {
    async insert(codeHash, code) {
      await insertCode.execute(db, {
        codeHash,
        grantId: code.grantId,
        clientId: code.clientId,
        userId: code.userId,
        redirectUri: code.redirectUri,
        codeChallenge: code.codeChallenge,
        scope: code.scope,
        nonce: code.nonce,
        authTime: code.authTime,
        sessionId: code.sessionId,
        resource: code.resource,
        dpopJkt: code.dpopJkt,
        createdAt: new Date(clock.now()),
        expiresAt: code.expiresAt,
      });
    },
    async consume(codeHash, clientId, writes) {
      const now = new Date(clock.now());
      const jkt = writes.dpopJkt ?? null;
      const row = await redeemIntoGrant<CodeRow>(
        db,
        now,
        sql`update authorization_codes set redeemed_at = ${now}
          where code_hash = ${codeHash} and client_id = ${clientId} and redeemed_at is null and expires_at > ${now}
            and (dpop_jkt is null or dpop_jkt = ${jkt}::text)
          returning *`,
        writes,
      );
      if (!row) return undefined;
      return { code: toCode(row), user: userFromJoin(row), refreshIssued: row.refresh_issued };
    },
    async find(codeHash) {
      const row = await db.selectFrom('authorization_codes').selectAll().where('code_hash', '=', codeHash).executeTakeFirst();
      return row && toCode(row);
    },
    async discardUnredeemedOf(userId) {
      const result = await db.deleteFrom('authorization_codes').where('user_id', '=', userId).where('redeemed_at', 'is', null).executeTakeFirst();
      return Number(result.numDeletedRows);
    },
    async purgeExpired() {
      const result = await sql`
        delete from authorization_codes c
        where c.expires_at < ${new Date(clock.now())}
          and (c.redeemed_at is null or not exists (select 1 from oauth_grants g where g.id = c.grant_id))`.execute(db);
      return Number(result.numAffectedRows ?? 0n);
    },
  };
}
