// The one statement that turns a consumed authorization (an authorization code or an approved device
// authorization) into a grant: given the `redeemed` CTE, which must mark its row spent and return it, it
// creates the grant (keeping the sign-in's amr from its browser session's record), records the access token
// about to be signed, starts the refresh-token family when one is due and reads the user — one round trip.
// Single use rests on the caller's `redeemed` update: a parallel redemption waits for the row lock, then
// finds it spent and creates nothing.
import { sql, type RawBuilder } from 'kysely';
import type { Db } from '../driver/database.js';
import type { IssuedAccessTokenRecord } from './grants-repository.js';
import { joinedUserColumns, type JoinedUserRow } from './users-repository.js';

/** What the redemption statement creates besides the grant. */
export interface GrantRedemptionWrites {
  grantLifetimeSeconds: number;
  /** The access token about to be signed, recorded under the new grant (absent for callers that only mint grants). */
  accessToken?: IssuedAccessTokenRecord;
  /** The first refresh token of the family; inserted only when the scope calls for one (docs/token-formats.md). */
  refresh?: { tokenHash: string; idleSeconds: number };
  /** Thumbprint of the redeeming request's DPoP proof key: binds the first refresh token (RFC 9449 5). */
  dpopJkt?: string | undefined;
}

/**
 * Runs `redeemed` (an `update … returning *` of a row with grant_id, client_id, user_id, scope, auth_time,
 * session_id and resource) and creates the grant it stands for; undefined when it redeemed nothing.
 */
export async function redeemIntoGrant<Row>(
  db: Db,
  at: Date,
  redeemed: RawBuilder<unknown>,
  { grantLifetimeSeconds, accessToken, refresh, dpopJkt }: GrantRedemptionWrites,
): Promise<(Row & JoinedUserRow & { refresh_issued: boolean }) | undefined> {
  const jkt = dpopJkt ?? null;
  const lifetime = sql`make_interval(secs => ${grantLifetimeSeconds}::double precision)`;
  // docs/token-formats.md: a refresh token comes with offline_access (OIDC) or for plain OAuth (no openid); the
  // caller passes `refresh` only when the client is registered for the refresh_token grant.
  const { rows } = await sql<Row & JoinedUserRow & { refresh_issued: boolean }>`
    with redeemed as (${redeemed}), granted as (
      insert into oauth_grants (id, client_id, user_id, scope, auth_time, session_id, amr, resource, created_at, expires_at)
      select grant_id, client_id, user_id, scope, auth_time, session_id,
             -- session_id is the session's sid (0860); its amr while it still holds the sign-in the code carries.
             (select a.amr from session_authentications a join browser_sessions s on s.id_hash = a.session_hash
              where s.sid = redeemed.session_id and s.auth_time = redeemed.auth_time),
             resource, ${at}, auth_time + ${lifetime}
      from redeemed
    ), recorded as (
      insert into grant_access_tokens (jti, grant_id, expires_at)
      select ${accessToken?.jti ?? null}::text, grant_id, ${accessToken?.expiresAt ?? null}::timestamptz
      from redeemed where ${accessToken !== undefined}
    ), first_refresh as (
      insert into refresh_tokens (token_hash, grant_id, created_at, idle_expires_at, dpop_jkt)
      select ${refresh?.tokenHash ?? null}::text, grant_id, ${at},
             least(${at}::timestamptz + make_interval(secs => ${refresh?.idleSeconds ?? 0}::double precision), auth_time + ${lifetime}),
             ${jkt}::text
      from redeemed
      where ${refresh !== undefined} and ('offline_access' = any(scope) or not 'openid' = any(scope))
      returning grant_id
    )
    select r.*, ${joinedUserColumns}, exists (select 1 from first_refresh) as refresh_issued
    from redeemed r left join users u on u.id = r.user_id`.execute(db);
  return rows[0];
}
