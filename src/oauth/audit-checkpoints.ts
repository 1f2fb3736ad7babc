// GET /.well-known/audit-checkpoints (docs/audit-log.md): the newest signed checkpoints of the audit chain,
// public like the JWKS whose key signed them, so that an auditor or a monitor can keep copies outside the
// database and later prove with `gatehouse audit verify --from JWS` that nothing before them was changed.
// A checkpoint reveals a position and a hash, never an event.
import type { FastifyInstance } from 'fastify';
import type { OAuthDeps } from './deps.js';
import { CHECKPOINTS_PATH } from '../audit/checkpoints.js';
import { JWKS_PATH } from './jwks.js';

const PUBLISHED = 100;

const checkpoint = {
  type: 'object',
  required: ['seq', 'hash', 'issued_at', 'jws'],
  additionalProperties: false,
  properties: { seq: { type: 'integer' }, hash: { type: 'string' }, issued_at: { type: 'string' }, jws: { type: 'string' } },
} as const;

export function auditCheckpointsEndpoint(app: FastifyInstance, services: Pick<OAuthDeps, 'config' | 'store'>): void {
  app.get(
    CHECKPOINTS_PATH,
    {
      schema: {
        response: {
          200: {
            type: 'object',
            required: ['issuer', 'jwks_uri', 'checkpoints'],
            additionalProperties: false,
            properties: { issuer: { type: 'string' }, jwks_uri: { type: 'string' }, checkpoints: { type: 'array', items: checkpoint } },
          },
        },
      },
    },
    async (_request, reply) => {
      const checkpoints = await services.store.auditChain.checkpoints(PUBLISHED);
      reply.header('cache-control', 'public, max-age=60');
      return {
        issuer: services.config.ISSUER,
        jwks_uri: `${services.config.ISSUER}${JWKS_PATH}`,
        checkpoints: checkpoints.map((c) => ({ seq: c.seq, hash: c.hash.toString('base64url'), issued_at: c.issuedAt.toISOString(), jws: c.jws })),
      };
    },
  );
}
