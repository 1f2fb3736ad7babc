import type { FastifyInstance } from 'fastify';
import type { Core } from '../../core.js';

export async function usersRoutes(app: FastifyInstance, { core }: { core: Core }): Promise<void> {
  void app;
  void core;
}
