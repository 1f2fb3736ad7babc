// Purges delete in bounded batches: a backlog (after downtime, or after a flood of anonymous requests)
// never becomes one long statement holding locks on a busy table.
export const PURGE_BATCH_SIZE = 1000;

/** Runs `deleteBatch(limit)` until a batch deletes fewer rows than the limit; returns the total. */
export async function inBatches(deleteBatch: (limit: number) => Promise<number>, limit = PURGE_BATCH_SIZE): Promise<number> {
  let total = 0;
  for (;;) {
    const deleted = await deleteBatch(limit);
    total += deleted;
    if (deleted < limit) return total;
  }
}
