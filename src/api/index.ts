// The resource API face: versioned resources under /v1 behind bearer authentication, plus the
// OpenAPI document (/openapi.json), its human rendering (/docs) and the problem-type pages (/problems).
import type { FastifyInstance } from 'fastify';
import type { Core } from '../core.js';
import { resourceServerAuth, type ResourceServerAuth } from './auth/index.js';
import { apiVersion } from './version.js';

export async function resourceApi(app: FastifyInstance, { core }: { core: Core }): Promise<void> {
  const auth = resourceServerAuth(core, { jwksUrl: core.config.JWKS_URL });
  await app.register(apiVersion, { prefix: '/v1', version: 'v1', core, auth });
}

export type { ResourceServerAuth };
