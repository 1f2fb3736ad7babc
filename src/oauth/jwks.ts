// GET /.well-known/jwks.json (RFC 7517; docs/key-rotation.md): the public signing keys, each with kid, alg and use. Cacheable
// for JWKS_CACHE_TTL — the same delay a rotated key waits before it signs, so no verifier meets an unknown kid.
import type { FastifyInstance } from 'fastify';
import type { OAuthDeps } from './deps.js';

export const JWKS_PATH = '/.well-known/jwks.json';

export function jwksEndpoint(app: FastifyInstance, services: Pick<OAuthDeps, 'config' | 'keys'>): void {
  app.get(JWKS_PATH, async (_request, reply) => {
    reply.header('cache-control', `public, max-age=${services.config.JWKS_CACHE_TTL}`).type('application/json; charset=utf-8');
    return services.keys.jwks();
  });
}
