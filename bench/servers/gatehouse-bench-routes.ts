// Bench-only additions to the Gatehouse app under test (never part of the product): the /v1/users/me
// handler mounted a second time without bearer authentication, so the users-me scenario isolates what
// authentication costs. Empty until the users resource has landed.
import type { FastifyInstance } from 'fastify';
import type { Core } from '../../src/core.js';

export async function mountBenchRoutes(app: FastifyInstance, core: Core): Promise<{ usersMe: boolean }> {
  void app;
  void core;
  return { usersMe: false };
}
