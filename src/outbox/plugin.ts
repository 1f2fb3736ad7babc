// Starts the outbox worker with the app and stops it (after its in-flight delivery) when the app closes; the
// worker itself is built by the composition root (src/services.ts). A message in flight when the process
// dies is claimed again by any instance once its lease passes (docs/outbox.md).
import fp from 'fastify-plugin';
import type { OutboxWorker } from './outbox.js';

export const outboxWorkerPlugin = fp<{ worker: OutboxWorker; close: () => void }>(
  async (app, { worker, close }) => {
    app.addHook('onReady', async () => worker.start());
    app.addHook('onClose', async () => {
      await worker.stop();
      close();
    });
  },
  { name: 'gatehouse-outbox-worker', fastify: '5.x' },
);
