// Work that must happen only once a transaction has committed — today the audit log's JSON line, which
// would otherwise claim a change the rollback undid (docs/audit-log.md). Kysely has no commit hook, so
// transactions whose effects announce themselves are opened with `runTransaction`, which runs the
// callbacks registered on that transaction after the commit and drops them on a rollback.
import type { Db } from './database.js';

// A callback may be async (re-reading state the commit changed): the transaction's caller waits for it, so
// whoever asked for the change sees its effects when the call returns.
type Callback = () => void | Promise<void>;

// Keyed by the transaction object itself: gone with it, and no global list to leak or to clear.
const pending = new WeakMap<Db, Callback[]>();

/**
 * Runs `work` in a new transaction; callbacks registered on it with `afterCommit` run once it has committed.
 * Inside a transaction already (opened here too), `work` joins it and its callbacks wait for that commit.
 */
export async function runTransaction<T>(db: Db, work: (tx: Db) => Promise<T>): Promise<T> {
  if (db.isTransaction) return work(db);
  let callbacks: Callback[] = [];
  const result = await db.transaction().execute(async (tx) => {
    callbacks = [];
    pending.set(tx, callbacks);
    return work(tx);
  });
  for (const callback of callbacks) await callback();
  return result;
}

/**
 * Runs `callback` after `db` commits (at once when `db` is not a transaction). A transaction not opened
 * with `runTransaction` would never call it back, so that is refused rather than silently dropped.
 */
export function afterCommit(db: Db, callback: Callback): void {
  if (!db.isTransaction) {
    void callback();
    return;
  }
  const callbacks = pending.get(db);
  if (!callbacks) throw new Error('afterCommit needs a transaction opened with runTransaction');
  callbacks.push(callback);
}
