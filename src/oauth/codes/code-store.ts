// Storage of authorization codes, keyed by SHA-256 of the code. Redemption is one statement that both
// consumes the code and creates its grant, so exactly one of any number of parallel redemptions wins and a
// later second use always finds the grant to revoke (RFC 6749 4.1.2).
import { sql, type Selectable } from 'kysely';
import type { Clock } from '../../clock.js';
import type { Db } from '../../storage/database.js';
import type { AuthorizationCodesTable } from '../../storage/schema.js';

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
  expiresAt: Date;
  redeemedAt: Date | null;
}

export interface CodeStore {
  insert(codeHash: string, code: Omit<StoredCode, 'redeemedAt'>): Promise<void>;
  /** Atomically marks the code redeemed by `clientId` and creates its grant; undefined when it was not redeemable. */
  consume(codeHash: string, clientId: string, grantLifetimeSeconds: number): Promise<StoredCode | undefined>;
  find(codeHash: string): Promise<StoredCode | undefined>;
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
  expiresAt: r.expires_at,
  redeemedAt: r.redeemed_at,
});

export function codeStore(db: Db, clock: Clock): CodeStore {
  return {
    async insert(codeHash, code) {
      await db
        .insertInto('authorization_codes')
        .values({
          code_hash: codeHash,
          grant_id: code.grantId,
          client_id: code.clientId,
          user_id: code.userId,
          redirect_uri: code.redirectUri,
          code_challenge: code.codeChallenge,
          scope: code.scope,
          nonce: code.nonce,
          auth_time: code.authTime,
          session_id: code.sessionId,
          resource: code.resource,
          created_at: new Date(clock.now()),
          expires_at: code.expiresAt,
        })
        .execute();
    },
    async consume(codeHash, clientId, grantLifetimeSeconds) {
      const now = new Date(clock.now());
      const { rows } = await sql<CodeRow>`
        with redeemed as (
          update authorization_codes set redeemed_at = ${now}
          where code_hash = ${codeHash} and client_id = ${clientId} and redeemed_at is null and expires_at > ${now}
          returning *
        ), granted as (
          insert into oauth_grants (id, client_id, user_id, scope, auth_time, session_id, resource, created_at, expires_at)
          select grant_id, client_id, user_id, scope, auth_time, session_id, resource, ${now},
                 auth_time + make_interval(secs => ${grantLifetimeSeconds}::double precision)
          from redeemed
        )
        select * from redeemed`.execute(db);
      return rows[0] && toCode(rows[0]);
    },
    async find(codeHash) {
      const row = await db.selectFrom('authorization_codes').selectAll().where('code_hash', '=', codeHash).executeTakeFirst();
      return row && toCode(row);
    },
  };
}
