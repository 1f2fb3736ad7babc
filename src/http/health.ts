import type { FastifyInstance } from 'fastify';
import { ProblemError } from './errors.js';

export function healthRoutes(app: FastifyInstance, ping: () => Promise<void>): void {
  app.get('/healthz', async () => ({ status: 'ok' }));
  app.get('/readyz', async (request) => {
    try {
      await ping();
    } catch (error) {
      request.log.warn({ err: error }, 'readiness check failed');
      throw new ProblemError('service-unavailable', 'The database is not reachable.', { headers: { 'retry-after': '5' } });
    }
    return { status: 'ready' };
  });
}
