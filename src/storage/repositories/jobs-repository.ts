// The job queue's table. Claiming is one statement: the oldest runnable job, chosen with
// `FOR UPDATE SKIP LOCKED` so several workers (and instances) never claim the same row, and a job
// whose worker died (lease passed) becomes claimable again. `attempts` fences a stale worker's result.
import { sql } from 'kysely';
import type { Db } from '../driver/database.js';

export interface Job {
  id: string;
  kind: string;
  payload: unknown;
  attempts: number;
  /** The enqueuing request's W3C traceparent, when it was traced: the run's span continues its trace. */
  traceparent: string | null;
}

export interface JobsRepository {
  enqueue(job: { kind: string; payload: unknown; now: Date; traceparent?: string | undefined }): Promise<string>;
  claim(now: Date, lockedUntil: Date): Promise<Job | undefined>;
  finish(job: Job, now: Date): Promise<boolean>;
  retryLater(job: Job, error: string, runAfter: Date, now: Date): Promise<void>;
  fail(job: Job, error: string, now: Date): Promise<boolean>;
}

export function jobsRepository(db: Db): JobsRepository {
  const fenced = (job: Job) => db.updateTable('jobs').where('id', '=', job.id).where('attempts', '=', job.attempts).where('state', '=', 'running');
  return {
    async enqueue(job) {
      const row = await db
        .insertInto('jobs')
        .values({
          kind: job.kind,
          payload: JSON.stringify(job.payload),
          run_after: job.now,
          created_at: job.now,
          updated_at: job.now,
          traceparent: job.traceparent ?? null,
        })
        .returning('id')
        .executeTakeFirstOrThrow();
      return row.id;
    },
    async claim(now, lockedUntil) {
      const { rows } = await sql<Job>`
        update jobs set state = 'running', attempts = attempts + 1, locked_until = ${lockedUntil}, updated_at = ${now}
        where id = (
          select id from jobs
          where (state = 'queued' and run_after <= ${now}) or (state = 'running' and locked_until <= ${now})
          order by run_after
          limit 1
          for update skip locked
        )
        returning id, kind, payload, attempts, traceparent`.execute(db);
      return rows[0];
    },
    async finish(job, now) {
      const result = await fenced(job).set({ state: 'done', locked_until: null, updated_at: now }).executeTakeFirst();
      return Number(result.numUpdatedRows) === 1;
    },
    async retryLater(job, error, runAfter, now) {
      await fenced(job).set({ state: 'queued', locked_until: null, run_after: runAfter, last_error: error, updated_at: now }).execute();
    },
    async fail(job, error, now) {
      const result = await fenced(job).set({ state: 'failed', locked_until: null, last_error: error, updated_at: now }).executeTakeFirst();
      return Number(result.numUpdatedRows) === 1;
    },
  };
}
