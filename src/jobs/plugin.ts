// Starts the job worker with the app and stops it (after its in-flight job) when the app closes. The queue
// itself (its handlers and periodic tasks) is built by the composition root (src/services.ts); the faces
// whose records it purges or whose work it runs declare this plugin as a dependency, so an app without a
// running worker fails at boot instead of silently never purging. `app.jobs` lets tests drain the queue.
import fp from 'fastify-plugin';
import type { JobQueue } from './worker.js';
import { JOBS_PLUGIN } from '../face-dependencies.js';

declare module 'fastify' {
  interface FastifyInstance {
    jobs: JobQueue;
  }
}

export const jobWorker = fp<{ jobs: JobQueue }>(
  async (app, { jobs }) => {
    app.decorate('jobs', jobs);
    app.addHook('onReady', async () => jobs.start());
    app.addHook('onClose', async () => jobs.stop());
  },
  { name: JOBS_PLUGIN, fastify: '5.x' },
);
