// The browser face: login, consent and logout pages, browser sessions, CSRF.
import type { FastifyInstance } from 'fastify';
import type { Core } from '../core.js';

export async function interactionPages(app: FastifyInstance, { core }: { core: Core }): Promise<void> {
  void app;
  void core;
}
