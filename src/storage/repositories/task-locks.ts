// Periodic tasks that must run once for the whole deployment (a signed audit checkpoint, an automatic key
// rotation): every instance's timer fires, each takes this transaction-scoped advisory lock by the task's name,
// and under it decides from rows whether the task is still due — so the instance that comes second sees what
// the first committed and does nothing. Released by the transaction's end, whatever way it ends.
import { sql } from 'kysely';
import type { Db } from '../driver/database.js';

export async function lockTask(tx: Db, name: string): Promise<void> {
  if (!tx.isTransaction) throw new Error('lockTask needs a transaction');
  await sql`select pg_advisory_xact_lock(hashtextextended(${`gatehouse task ${name}`}, 0))`.execute(tx);
}
