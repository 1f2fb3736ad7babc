// Starts the job worker with the app and stops it (after its in-flight job) when the app closes.
// `app.jobs` is how resource plugins register job handlers and enqueue work.
import type { FastifyInstance } from 'fastify';
import type { Core } from '../core.js';
import { jobQueue, type JobQueue } from './worker.js';

declare module 'fastify' {
  interface FastifyInstance {
    jobs: JobQueue;
  }
}

/** Call on the root instance before the resource API is registered. */
export function installJobQueue(app: FastifyInstance, core: Pick<Core, 'db' | 'clock'>): void {
  const jobs = jobQueue({ db: core.db, clock: core.clock, log: app.log });
  app.decorate('jobs', jobs);
  app.addHook('onReady', async () => jobs.start());
  app.addHook('onClose', async () => jobs.stop());
}
