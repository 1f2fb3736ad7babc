// Access tokens revoked before they expire: by jti (/revoke, refresh-family and code-reuse revocation,
// grants of a deleted user or client), and by client (a deleted or disabled client's tokens, including
// client_credentials tokens that no grant records). Readers: the resource API, /userinfo, /introspect.
import { sql } from 'kysely';
import type { Clock } from '../clock.js';
import type { Db } from './database.js';

// Revocations committed by this process, counted. A cache of verified tokens in the same process looks
// again at the revocation list whenever the count moved, so /revoke, a family revocation or a deleted
// user or client takes effect on the very next request here; other instances within their re-check
// interval. Bumped after the write has committed (a re-check running meanwhile is then repeated).
let revocationsWrittenHere = 0;
export const localRevocationCount = (): number => revocationsWrittenHere;
export const noteRevocationsWritten = (): void => {
  revocationsWrittenHere += 1;
};

export interface RevokedAccessToken {
  jti: string;
  expiresAt: Date;
}

/** What a revocation check needs of a verified access token. */
export interface PresentedAccessToken {
  jti: string;
  clientId: string;
  /** Epoch seconds. */
  iat: number;
}

/** Every token of a client issued up to `coversIssuedUntil` is refused until `expiresAt`. */
export interface RevokedClient {
  clientId: string;
  coversIssuedUntil: Date;
  expiresAt: Date;
}

export interface RevocationsRepository {
  revoke(tokens: readonly RevokedAccessToken[]): Promise<void>;
  revokeClient(client: RevokedClient): Promise<void>;
  /** The token's jti is revoked, or its client was deleted or disabled after it was issued. One round trip. */
  isRevoked(token: PresentedAccessToken): Promise<boolean>;
  /** Drops entries whose tokens have expired anyway; returns how many. */
  purgeExpired(): Promise<number>;
}

export function revocationsRepository(db: Db, clock: Clock): RevocationsRepository {
  return {
    async revoke(tokens) {
      if (tokens.length === 0) return;
      await db
        .insertInto('revoked_access_tokens')
        .values(tokens.map((t) => ({ jti: t.jti, expires_at: t.expiresAt, revoked_at: new Date(clock.now()) })))
        .onConflict((oc) => oc.column('jti').doNothing())
        .execute();
      noteRevocationsWritten();
    },
    async revokeClient({ clientId, coversIssuedUntil, expiresAt }) {
      // A second revocation of the same id (disabled, then deleted) keeps the wider of the two.
      await db
        .insertInto('revoked_clients')
        .values({ client_id: clientId, revoked_at: new Date(clock.now()), covers_issued_until: coversIssuedUntil, expires_at: expiresAt })
        .onConflict((oc) =>
          oc.column('client_id').doUpdateSet((eb) => ({
            revoked_at: eb.ref('excluded.revoked_at'),
            covers_issued_until: sql`greatest(revoked_clients.covers_issued_until, excluded.covers_issued_until)`,
            expires_at: sql`greatest(revoked_clients.expires_at, excluded.expires_at)`,
          })),
        )
        .execute();
      noteRevocationsWritten();
    },
    async isRevoked({ jti, clientId, iat }) {
      const { rows } = await sql<{ revoked: boolean }>`
        select exists (select 1 from revoked_access_tokens where jti = ${jti})
            or exists (select 1 from revoked_clients where client_id = ${clientId} and covers_issued_until >= ${new Date(iat * 1000)})
            as revoked`.execute(db);
      return rows[0]?.revoked === true;
    },
    async purgeExpired() {
      const at = new Date(clock.now());
      const result = await db.deleteFrom('revoked_access_tokens').where('expires_at', '<', at).executeTakeFirst();
      const clients = await db.deleteFrom('revoked_clients').where('expires_at', '<', at).executeTakeFirst();
      return Number(result.numDeletedRows) + Number(clients.numDeletedRows);
    },
  };
}
