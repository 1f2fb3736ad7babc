// The refresh-rotation race of issue 5: N parallel uses of one refresh token, then a check that the family
// is either intact with exactly one live token (the winner's) or fully revoked — never two live branches.
import { sql } from 'kysely';
import type { Db } from '../../src/storage/driver/database.js';
import { sha256 } from '../../src/crypto/random.js';

export interface RaceOutcome {
  successes: number;
  revoked: boolean;
  live: number;
  violation?: string;
}

/** `branches`: unrotated tokens of the family (a structural count, revoked or not); `live`: usable ones. */
export async function familyState(
  db: Db,
  grantId: string,
  now: Date,
): Promise<{ revoked: boolean; branches: number; live: number; unrevokedAccessTokens: number }> {
  const { rows } = await sql<{ revoked: boolean; branches: number; unrevoked: number }>`
    select g.revoked_at is not null as revoked,
      (select count(*) from refresh_tokens r where r.grant_id = g.id and r.rotated_at is null and r.idle_expires_at > ${now}) as branches,
      (select count(*) from grant_access_tokens a where a.grant_id = g.id
         and not exists (select 1 from revoked_access_tokens v where v.jti = a.jti)) as unrevoked
    from oauth_grants g where g.id = ${grantId}`.execute(db);
  const row = rows[0];
  if (!row) throw new Error(`no grant ${grantId}`);
  const branches = Number(row.branches);
  return { revoked: row.revoked, branches, live: row.revoked ? 0 : branches, unrevokedAccessTokens: Number(row.unrevoked) };
}

export async function grantIdOf(db: Db, refreshToken: string): Promise<string> {
  const row = await db.selectFrom('refresh_tokens').select('grant_id').where('token_hash', '=', sha256(refreshToken)).executeTakeFirstOrThrow();
  return row.grant_id;
}

/** Judges one race from the responses and the family's state afterwards. */
export async function judgeRace(
  db: Db,
  grantId: string,
  responses: readonly { status: number; body: Record<string, unknown> }[],
  now: Date,
): Promise<RaceOutcome> {
  const winners = responses.filter((r) => r.status === 200);
  const losers = responses.filter((r) => r.status !== 200);
  const state = await familyState(db, grantId, now);
  const outcome: RaceOutcome = { successes: winners.length, revoked: state.revoked, live: state.live };
  if (losers.some((r) => r.body.error !== 'invalid_grant'))
    return { ...outcome, violation: `unexpected loser answer ${JSON.stringify(losers.map((l) => l.status))}` };
  if (winners.length > 1) return { ...outcome, violation: `${winners.length} successes` };
  if (state.branches > 1) return { ...outcome, violation: `${state.branches} unrotated branches` };
  if (state.revoked) {
    if (state.unrevokedAccessTokens !== 0) return { ...outcome, violation: 'revoked family still has live access tokens' };
    return outcome;
  }
  if (state.live !== 1) return { ...outcome, violation: `intact family has ${state.live} live refresh tokens` };
  if (winners.length !== 1) return { ...outcome, violation: 'intact family but no winner holds its live token' };
  const winnerToken = winners[0]!.body.refresh_token as string;
  const live = await db.selectFrom('refresh_tokens').select('rotated_at').where('token_hash', '=', sha256(winnerToken)).executeTakeFirst();
  if (!live || live.rotated_at !== null) return { ...outcome, violation: 'the live token is not the winner’s' };
  return outcome;
}
