// One `gatehouse apply` at a time: a transaction-scoped advisory lock, so two runs on the same file (two
// deploy jobs, a retry) serialise and the second plans against what the first committed
// (docs/configuration-as-code.md). Released by the transaction's end, whatever way it ends.
import { sql } from 'kysely';
import type { Db } from '../driver/database.js';

export const applyLockRepository = (tx: Db) => ({
  async lock(): Promise<void> {
    await sql`select pg_advisory_xact_lock(hashtext('gatehouse apply'))`.execute(tx);
  },
});
