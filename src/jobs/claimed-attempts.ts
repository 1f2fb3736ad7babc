// The claim-and-process step the job queue (worker.ts) and the outbox (outbox/outbox.ts) both run: claim one
// due row under a lease, process it, and keep the whole attempt — claim included — in flight, so that a
// drain() that finds nothing to claim while the background loop has just claimed a row still waits for that
// row to finish, and a stop() waits for every attempt under way.
import type { Clock } from '../clock.js';

export interface ClaimedAttempts {
  /** Claims and processes one due row; false when there was none. */
  runOnce(): Promise<boolean>;
  /** Processes rows until none is due and no attempt is in flight. */
  drain(): Promise<void>;
  /** Waits for every attempt under way (stop()). */
  settle(): Promise<void>;
}

export function claimedAttempts<Row>({
  clock,
  leaseMs,
  claim,
  process,
}: {
  clock: Clock;
  leaseMs: number;
  /** Claims one due row until `leaseUntil` (another worker may take it after), or undefined. */
  claim(now: Date, leaseUntil: Date): Promise<Row | undefined>;
  process(row: Row): Promise<void>;
}): ClaimedAttempts {
  const inFlight = new Set<Promise<unknown>>();
  function runOnce(): Promise<boolean> {
    const attempt = (async () => {
      const now = clock.now();
      const row = await claim(new Date(now), new Date(now + leaseMs));
      if (!row) return false;
      await process(row);
      return true;
    })();
    inFlight.add(attempt);
    const settled = () => void inFlight.delete(attempt);
    attempt.then(settled, settled);
    return attempt;
  }
  return {
    runOnce,
    async drain() {
      for (;;) {
        const worked = await runOnce();
        await Promise.allSettled(inFlight);
        if (!worked && inFlight.size === 0) return;
      }
    },
    async settle() {
      await Promise.allSettled(inFlight);
    },
  };
}
