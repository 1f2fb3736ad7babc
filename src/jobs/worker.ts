// The background worker: claims jobs from the database queue and runs their handler, retrying with
// backoff and giving up after MAX_ATTEMPTS. It also runs small periodic tasks (e.g. purging expired
// idempotency keys). Work never runs inside a request; a restart or a second instance simply picks up
// whatever is queued. Tests call `drain()` to await the queue deterministically instead of sleeping.
// With tracing on (docs/observability.md#traces) each run is a span: a job's `job run <kind>`, a child of the
// request that enqueued it (its traceparent is stored with the job), a periodic task's `job periodic <name>`, a
// trace of its own; their queries are spans under them. Tracing off, these calls do nothing.
import type { Clock } from '../clock.js';
import type { Job } from '../storage/repositories/jobs-repository.js';
import type { Store } from '../storage/store.js';
import { currentTraceparent, inStoredTraceSpan, markActiveSpanFailed } from '../telemetry/trace-context.js';
import { claimedAttempts } from './claimed-attempts.js';

export interface JobHandler {
  run(payload: unknown, context: { store: Store }): Promise<void>;
  /** Called once the job has failed for good. */
  failed?(payload: unknown, error: unknown, context: { store: Store }): Promise<void>;
}

export interface JobQueue {
  handle(kind: string, handler: JobHandler): void;
  /** Enqueues inside the caller's transaction; call `wake()` after it commits. */
  enqueue(tx: Store, kind: string, payload: unknown): Promise<string>;
  wake(): void;
  every(name: string, intervalMs: number, task: () => Promise<unknown>): void;
  /** Claims and runs one job; false when none was runnable. */
  runOnce(): Promise<boolean>;
  /** Runs until the queue is empty and no job is in flight. */
  drain(): Promise<void>;
  /** Runs the periodic tasks that are due by the clock (tests call it after advancing a manual clock). */
  runDue(): Promise<void>;
  start(): void;
  stop(): Promise<void>;
}

export const MAX_ATTEMPTS = 3;
const LEASE_MS = 5 * 60_000;
const IDLE_POLL_MS = 1_000;

interface Log {
  warn(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
}

export function jobQueue({ store, clock, log }: { store: Store; clock: Clock; log: Log }): JobQueue {
  const repository = store.jobs;
  const handlers = new Map<string, JobHandler>();
  const periodic = new Map<string, { intervalMs: number; task: () => Promise<unknown>; lastRun: number }>();
  let running = false;
  let loop: Promise<void> | undefined;
  let wakeUp: (() => void) | undefined;

  function execute(job: Job): Promise<void> {
    const attributes = { 'gatehouse.job.id': job.id, 'gatehouse.job.kind': job.kind, 'gatehouse.job.attempt': job.attempts };
    return inStoredTraceSpan(`job run ${job.kind}`, job.traceparent, attributes, () => executeTraced(job));
  }

  async function executeTraced(job: Job): Promise<void> {
    const handler = handlers.get(job.kind);
    const now = () => new Date(clock.now());
    try {
      if (!handler) throw new Error(`no handler for job kind ${job.kind}`);
      await handler.run(job.payload, { store });
      await repository.finish(job, now());
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      log.warn({ err: error, job_id: job.id, kind: job.kind, attempt: job.attempts }, 'job failed');
      markActiveSpanFailed(message, { 'gatehouse.job.permanent': job.attempts >= MAX_ATTEMPTS });
      if (job.attempts < MAX_ATTEMPTS) {
        await repository.retryLater(job, message, new Date(clock.now() + job.attempts * 5_000), now());
      } else if ((await repository.fail(job, message, now())) && handler?.failed) {
        await handler.failed(job.payload, error, { store });
      }
    }
  }

  async function runPeriodic(): Promise<void> {
    for (const [name, entry] of periodic) {
      if (clock.now() - entry.lastRun < entry.intervalMs) continue;
      entry.lastRun = clock.now();
      await inStoredTraceSpan(`job periodic ${name}`, null, { 'gatehouse.job.task': name }, entry.task).catch((error: unknown) =>
        log.warn({ err: error, task: name }, 'periodic task failed'),
      );
    }
  }

  // One pass at a time: runDue() waits for a pass the loop has already begun instead of skipping its tasks.
  let periodicPass: Promise<void> | undefined;
  function periodicOnce(): Promise<void> {
    periodicPass ??= runPeriodic().finally(() => {
      periodicPass = undefined;
    });
    return periodicPass;
  }

  // The whole attempt, claim included, counts as in flight (claimed-attempts.ts).
  const attempts = claimedAttempts({ clock, leaseMs: LEASE_MS, claim: (now, leaseUntil) => repository.claim(now, leaseUntil), process: execute });
  const { runOnce } = attempts;

  const idle = () =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, IDLE_POLL_MS);
      wakeUp = () => {
        clearTimeout(timer);
        resolve();
      };
    });

  async function work(): Promise<void> {
    while (running) {
      await periodicOnce();
      const worked = await runOnce().catch((error: unknown) => {
        log.error({ err: error }, 'job queue unavailable');
        return false;
      });
      if (!worked && running) await idle();
    }
  }

  return {
    handle: (kind, handler) => void handlers.set(kind, handler),
    enqueue: (tx, kind, payload) => tx.jobs.enqueue({ kind, payload, now: new Date(clock.now()), traceparent: currentTraceparent() }),
    wake: () => wakeUp?.(),
    every: (name, intervalMs, task) => void periodic.set(name, { intervalMs, task, lastRun: clock.now() }),
    runOnce,
    async runDue() {
      await periodicPass;
      await periodicOnce();
    },
    drain: attempts.drain,
    start() {
      if (running) return;
      running = true;
      loop = work();
    },
    async stop() {
      running = false;
      wakeUp?.();
      await loop;
      await attempts.settle();
    },
  };
}
