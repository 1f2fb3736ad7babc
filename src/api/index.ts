// The resource API face under /v1: bearer-token validation, users, orders, payments, reports.
import type { FastifyInstance } from 'fastify';
import type { Core } from '../core.js';

export async function resourceApi(app: FastifyInstance, { core }: { core: Core }): Promise<void> {
  void app;
  void core;
}
