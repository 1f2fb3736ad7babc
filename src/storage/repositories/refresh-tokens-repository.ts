// Storage of refresh tokens by SHA-256, each in the family of one grant. A token is live while it is not
// rotated, not idle-expired, and its grant is neither revoked nor past its absolute expiry.
//
// Rotation is ONE statement: it marks the presented token rotated only if it is live, belongs to the
// client and the requested scope fits, inserts the successor from the same row, records the access token
// about to be signed under the grant, and reads the user — one round trip per refresh. Concurrent rotations
// of one token serialise on its row lock; after the winner commits, the others re-check `rotated_at is
// null`, match nothing, and go on to reuse detection — so a family never has two live branches.
//
// DPoP (RFC 9449 5): a token carries the thumbprint of the key it is bound to. Rotation matches only when
// the request's proof is of that key (an unbound token matches any request), and the successor inherits
// the binding — or takes the request's key when the family was unbound, so a token issued with a proof is
// always bound to it.
import { sql } from 'kysely';
import type { Clock } from '../../clock.js';
import type { Db } from '../driver/database.js';
import type { GrantRecord, IssuedAccessTokenRecord } from './grants-repository.js';
import { joinedUserColumns, userFromJoin, type JoinedUserRow, type UserRecord } from './users-repository.js';

export interface RefreshTokenRecord {
  /** RFC 9449 5: the JWK thumbprint the token is bound to, null when it is not DPoP-bound. */
  dpopJkt: string | null;
  createdAt: Date;
  idleExpiresAt: Date;
  rotatedAt: Date | null;
  sealedSuccessor: string | null;
  grant: GrantRecord;
}

export interface RotationInput {
  oldHash: string;
  newHash: string;
  clientId: string;
  /** The scope the new access token asks for; must be a subset of the grant's scope. */
  scope: readonly string[];
  idleSeconds: number;
  /** The access token about to be signed, recorded under the grant in the same statement. */
  accessToken: IssuedAccessTokenRecord;
  /** Thumbprint of the request's verified DPoP proof key, if it carried one. */
  dpopJkt: string | undefined;
}

export interface RotatedGrant {
  grant: GrantRecord;
  user: UserRecord | null;
  /** False when the grant was revoked while rotating: the access token must not be issued. */
  recorded: boolean;
  /** The key the successor is bound to (the request's), null when neither token nor request had one. */
  dpopJkt: string | null;
}

export interface RefreshTokensRepository {
  /** Rotates atomically; the grant when the presented token was live and matched, undefined otherwise. */
  rotate(input: RotationInput): Promise<RotatedGrant | undefined>;
  find(tokenHash: string): Promise<RefreshTokenRecord | undefined>;
  sealSuccessor(tokenHash: string, sealed: string): Promise<void>;
}

interface GrantRow {
  grant_id: string;
  client_id: string;
  user_id: string;
  scope: string[];
  auth_time: Date;
  amr: string[] | null;
  resource: string | null;
  session_id?: string | null;
  grant_created_at: Date;
  expires_at: Date;
  revoked_at: Date | null;
}

const toGrant = (r: GrantRow): GrantRecord => ({
  id: r.grant_id,
  clientId: r.client_id,
  userId: r.user_id,
  scope: r.scope,
  authTime: r.auth_time,
  amr: r.amr,
  resource: r.resource,
  ...(r.session_id !== undefined ? { sessionId: r.session_id } : {}),
  createdAt: r.grant_created_at,
  expiresAt: r.expires_at,
  revokedAt: r.revoked_at,
});

export function refreshTokensRepository(db: Db, clock: Clock): RefreshTokensRepository {
  const now = () => new Date(clock.now());
  return {
    async rotate({ oldHash, newHash, clientId, scope, idleSeconds, accessToken, dpopJkt }) {
      const at = now();
      const jkt = dpopJkt ?? null;
      // `recorded` share-locks the live grant row like the code redemption's: a revocation in flight
      // is waited for and seen (nothing recorded), one that starts later copies this jti.
      const { rows } = await sql<GrantRow & JoinedUserRow & { recorded: boolean; dpop_jkt: string | null }>`
        with presented as (
          update refresh_tokens r set rotated_at = ${at}
          from oauth_grants g
          where r.token_hash = ${oldHash} and r.grant_id = g.id
            and r.rotated_at is null and r.idle_expires_at > ${at}
            and g.revoked_at is null and g.expires_at > ${at}
            and g.client_id = ${clientId} and ${[...scope]}::text[] <@ g.scope
            and (r.dpop_jkt is null or r.dpop_jkt = ${jkt}::text)
          returning g.id as grant_id, g.client_id, g.user_id, g.scope, g.auth_time, g.amr, g.resource, g.session_id,
                    g.created_at as grant_created_at, g.expires_at, g.revoked_at, coalesce(r.dpop_jkt, ${jkt}::text) as dpop_jkt
        ), successor as (
          insert into refresh_tokens (token_hash, grant_id, created_at, idle_expires_at, dpop_jkt)
          select ${newHash}, grant_id, ${at}, least(${at}::timestamptz + make_interval(secs => ${idleSeconds}::double precision), expires_at), dpop_jkt
          from presented
        ), recorded as (
          insert into grant_access_tokens (jti, grant_id, expires_at)
          select ${accessToken.jti}, g.id, ${accessToken.expiresAt}
          from oauth_grants g
          where g.id = (select grant_id from presented) and g.revoked_at is null
          for share
          returning grant_id
        )
        select p.*, ${joinedUserColumns}, exists (select 1 from recorded) as recorded
        from presented p left join users u on u.id = p.user_id`.execute(db);
      const row = rows[0];
      if (!row) return undefined;
      return { grant: toGrant(row), user: userFromJoin(row), recorded: row.recorded, dpopJkt: row.dpop_jkt };
    },
    async find(tokenHash) {
      const row = await db
        .selectFrom('refresh_tokens as r')
        .innerJoin('oauth_grants as g', 'g.id', 'r.grant_id')
        .select([
          'r.created_at',
          'r.idle_expires_at',
          'r.rotated_at',
          'r.sealed_successor',
          'r.dpop_jkt',
          'g.id as grant_id',
          'g.client_id',
          'g.user_id',
          'g.scope',
          'g.auth_time',
          'g.amr',
          'g.resource',
          'g.created_at as grant_created_at',
          'g.expires_at',
          'g.revoked_at',
        ])
        .where('r.token_hash', '=', tokenHash)
        .executeTakeFirst();
      if (!row) return undefined;
      return {
        dpopJkt: row.dpop_jkt,
        createdAt: row.created_at,
        idleExpiresAt: row.idle_expires_at,
        rotatedAt: row.rotated_at,
        sealedSuccessor: row.sealed_successor,
        grant: toGrant(row),
      };
    },
    async sealSuccessor(tokenHash, sealed) {
      await db.updateTable('refresh_tokens').set({ sealed_successor: sealed }).where('token_hash', '=', tokenHash).execute();
    },
  };
}
