// The account-wide count of second-factor attempts (migrations/0470_second_factor_failures.sql), and the
// same count for codes typed on the federation's link confirmation page, kept apart from it
// (migrations/0750_link_proof_failures.sql, docs/rate-limits.md). A charge
// is one statement: it counts the attempt only if the account is neither waiting out its delay nor stopped,
// so parallel attempts from any number of instances and addresses cannot get past the count together.
import { sql } from 'kysely';
import type { Clock } from '../../clock.js';
import type { Db } from '../driver/database.js';

export interface SecondFactorPolicy {
  /** Consecutive failures charged without delay. */
  free: number;
  /** After `free`, each attempt waits 2^(n − free) seconds after the last, at most this long. */
  maxDelaySeconds: number;
  /** At this many consecutive failures nothing more is charged until the count is cleared. */
  stop: number;
}

export type ChargeOutcome = { ok: true; consecutive: number } | { ok: false; consecutive: number; retryAfterSeconds: number | undefined };

export interface SecondFactorFailuresRepository {
  charge(userId: string, policy: SecondFactorPolicy): Promise<ChargeOutcome>;
  clear(userId: string): Promise<void>;
}

/** Seconds an account with `consecutive` failures waits after the last one before the next attempt. */
const delayAfter = (consecutive: number, policy: SecondFactorPolicy): number =>
  consecutive < policy.free ? 0 : Math.min(policy.maxDelaySeconds, 2 ** (consecutive - policy.free));

/** Which count: the account's sign-in codes, or the codes typed to prove the account before linking a provider. */
export type FailureCount = 'second_factor_failures' | 'link_proof_failures';

export function secondFactorFailuresRepository(db: Db, clock: Clock, table: FailureCount = 'second_factor_failures'): SecondFactorFailuresRepository {
  return {
    async charge(userId, policy) {
      const now = new Date(clock.now());
      const charged = await sql<{ consecutive: number }>`
        insert into ${sql.table(table)} as f (user_id, consecutive, last_failure_at) values (${userId}, 1, ${now}::timestamptz)
        on conflict (user_id) do update set consecutive = f.consecutive + 1, last_failure_at = ${now}::timestamptz
        where f.consecutive < ${policy.stop}::int
          and (f.consecutive < ${policy.free}::int
               or f.last_failure_at + make_interval(secs => least(${policy.maxDelaySeconds}::float8, power(2, f.consecutive - ${policy.free}::int))) <= ${now}::timestamptz)
        returning consecutive`.execute(db);
      const row = charged.rows[0];
      if (row) return { ok: true, consecutive: row.consecutive };
      const current = await db.selectFrom(table).select(['consecutive', 'last_failure_at']).where('user_id', '=', userId).executeTakeFirst();
      if (!current) return { ok: false, consecutive: 0, retryAfterSeconds: 1 };
      if (current.consecutive >= policy.stop) return { ok: false, consecutive: current.consecutive, retryAfterSeconds: undefined };
      const waitMs = current.last_failure_at.getTime() + delayAfter(current.consecutive, policy) * 1000 - now.getTime();
      return { ok: false, consecutive: current.consecutive, retryAfterSeconds: Math.max(1, Math.ceil(waitMs / 1000)) };
    },
    async clear(userId) {
      await db.deleteFrom(table).where('user_id', '=', userId).execute();
    },
  };
}
