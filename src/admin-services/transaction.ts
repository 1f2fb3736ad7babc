// A service operation and its audit event commit together: run in the caller's transaction when there is
// one (the admin API's idempotent create), otherwise in a new one (the CLI).
import type { Db } from '../storage/database.js';
import { runTransaction } from '../storage/after-commit.js';

export const inTransaction = <T>(db: Db, work: (tx: Db) => Promise<T>): Promise<T> => (db.isTransaction ? work(db) : runTransaction(db, work));
