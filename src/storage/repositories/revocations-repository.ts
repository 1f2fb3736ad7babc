// Access tokens revoked before they expire: by jti (/revoke, refresh-family and code-reuse revocation,
// grants of a deleted user or client), and by client (a deleted or disabled client's tokens, including
// client_credentials tokens that no grant records). Readers: the resource API, /userinfo, /introspect.
import { sql } from 'kysely';
import type { Clock } from '../../clock.js';
import type { Db } from '../driver/database.js';

// Every committed row is announced on REVOCATIONS_CHANNEL by trigger (migration 0190), which keeps each
// instance's in-memory copy current (revocation-feed.ts).
export const REVOCATIONS_CHANNEL = 'gatehouse_revocations';

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

export interface LiveRevocations {
  tokens: RevokedAccessToken[];
  clients: RevokedClient[];
}

/** Where a page of the live list resumes: after this jti, or after this client id (tokens come first). */
export type RevocationsPosition = { kind: 'token'; after: string } | { kind: 'client'; after: string };

export interface RevocationsPage extends LiveRevocations {
  /** Where the next page starts; absent on the last page. */
  next?: RevocationsPosition;
}

export interface RevocationsRepository {
  revoke(tokens: readonly RevokedAccessToken[]): Promise<void>;
  revokeClient(client: RevokedClient): Promise<void>;
  /** The token's jti is revoked, or its client was deleted or disabled after it was issued. One round trip. */
  isRevoked(token: PresentedAccessToken): Promise<boolean>;
  /**
   * Until when the client's tokens are refused by issue time (covers_issued_until), if it is listed. Each
   * instance's copy only ever widens an entry (revocation-feed.ts), so a client enabled again cannot narrow it.
   */
  clientCoveredUntil(clientId: string): Promise<Date | undefined>;
  /** Every entry whose tokens have not expired yet: what an in-memory copy starts from. */
  live(): Promise<LiveRevocations>;
  /**
   * At most `limit` live entries (tokens by jti, then clients by id), from `from` on, only those revoked (or
   * widened) at or after `since` when given: what a copy kept over HTTP loads and catches up with, page by page.
   */
  page(options: { since?: Date | undefined; from?: RevocationsPosition | undefined; limit: number }): Promise<RevocationsPage>;
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
    },
    async isRevoked({ jti, clientId, iat }) {
      const { rows } = await sql<{ revoked: boolean }>`
        select exists (select 1 from revoked_access_tokens where jti = ${jti})
            or exists (select 1 from revoked_clients where client_id = ${clientId} and covers_issued_until >= ${new Date(iat * 1000)})
            as revoked`.execute(db);
      return rows[0]?.revoked === true;
    },
    async clientCoveredUntil(clientId) {
      const row = await db.selectFrom('revoked_clients').select('covers_issued_until').where('client_id', '=', clientId).executeTakeFirst();
      return row?.covers_issued_until;
    },
    async live() {
      const at = new Date(clock.now());
      const tokens = await db.selectFrom('revoked_access_tokens').select(['jti', 'expires_at']).where('expires_at', '>', at).execute();
      const clients = await db.selectFrom('revoked_clients').select(['client_id', 'covers_issued_until', 'expires_at']).where('expires_at', '>', at).execute();
      return {
        tokens: tokens.map((t) => ({ jti: t.jti, expiresAt: t.expires_at })),
        clients: clients.map((c) => ({ clientId: c.client_id, coversIssuedUntil: c.covers_issued_until, expiresAt: c.expires_at })),
      };
    },
    async page({ since, from, limit }) {
      const at = new Date(clock.now());
      // Keyset paging on the primary keys: each page is one index range, however long the list.
      let tokens: { jti: string; expires_at: Date }[] = [];
      if (from?.kind !== 'client') {
        let query = db.selectFrom('revoked_access_tokens').select(['jti', 'expires_at']).where('expires_at', '>', at);
        if (since) query = query.where('revoked_at', '>=', since);
        if (from) query = query.where('jti', '>', from.after);
        tokens = await query
          .orderBy('jti')
          .limit(limit + 1)
          .execute();
        if (tokens.length > limit) {
          tokens = tokens.slice(0, limit);
          return { tokens: tokens.map((t) => ({ jti: t.jti, expiresAt: t.expires_at })), clients: [], next: { kind: 'token', after: tokens.at(-1)!.jti } };
        }
      }
      const room = limit - tokens.length;
      let clientQuery = db.selectFrom('revoked_clients').select(['client_id', 'covers_issued_until', 'expires_at']).where('expires_at', '>', at);
      if (since) clientQuery = clientQuery.where('revoked_at', '>=', since);
      if (from?.kind === 'client') clientQuery = clientQuery.where('client_id', '>', from.after);
      let clients = await clientQuery
        .orderBy('client_id')
        .limit(room + 1)
        .execute();
      let next: RevocationsPosition | undefined;
      if (clients.length > room) {
        clients = clients.slice(0, room);
        next = { kind: 'client', after: clients.at(-1)?.client_id ?? '' };
      }
      return {
        tokens: tokens.map((t) => ({ jti: t.jti, expiresAt: t.expires_at })),
        clients: clients.map((c) => ({ clientId: c.client_id, coversIssuedUntil: c.covers_issued_until, expiresAt: c.expires_at })),
        ...(next ? { next } : {}),
      };
    },
    async purgeExpired() {
      const at = new Date(clock.now());
      const result = await db.deleteFrom('revoked_access_tokens').where('expires_at', '<', at).executeTakeFirst();
      const clients = await db.deleteFrom('revoked_clients').where('expires_at', '<', at).executeTakeFirst();
      return Number(result.numDeletedRows) + Number(clients.numDeletedRows);
    },
  };
}
