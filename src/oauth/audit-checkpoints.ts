// GET /.well-known/audit-checkpoints (docs/audit-log.md): the newest signed checkpoints of the audit chain,
// public like the JWKS whose key signed them, so that an auditor or a monitor can keep copies outside the
// database and later prove with `gatehouse audit verify --from JWS` that nothing before them was changed.
// A checkpoint reveals a position and a hash, never an event.
//
// Public and unauthenticated, so its answer is computed at most once per CACHE_SECONDS per instance (one entry,
// concurrent misses share one query): a flood of requests costs no database work. A checkpoint is written once
// per AUDIT_CHECKPOINT_INTERVAL (an hour by default), so a minute's delay in publishing it changes nothing; the
// same minute is what HTTP caches are told (max-age).
import type { FastifyInstance } from 'fastify';
import type { OAuthDeps } from './deps.js';
import { CHECKPOINTS_PATH } from '../audit/checkpoints.js';
import { JWKS_PATH } from './jwks.js';

const PUBLISHED = 100;
export const CACHE_SECONDS = 60;

interface Published {
  issuer: string;
  jwks_uri: string;
  checkpoints: { seq: number; hash: string; issued_at: string; jws: string }[];
}

const checkpoint = {
  type: 'object',
  required: ['seq', 'hash', 'issued_at', 'jws'],
  additionalProperties: false,
  properties: { seq: { type: 'integer' }, hash: { type: 'string' }, issued_at: { type: 'string' }, jws: { type: 'string' } },
} as const;

export function auditCheckpointsEndpoint(app: FastifyInstance, services: Pick<OAuthDeps, 'config' | 'store' | 'clock'>): void {
  let cached: { until: number; answer: Promise<Published> } | undefined;
  const load = async (): Promise<Published> => {
    const checkpoints = await services.store.auditChain.checkpoints(PUBLISHED);
    return {
      issuer: services.config.ISSUER,
      jwks_uri: `${services.config.ISSUER}${JWKS_PATH}`,
      checkpoints: checkpoints.map((c) => ({ seq: c.seq, hash: c.hash.toString('base64url'), issued_at: c.issuedAt.toISOString(), jws: c.jws })),
    };
  };
  const published = (): Promise<Published> => {
    const now = services.clock.now();
    if (!cached || cached.until <= now) {
      const answer = load();
      cached = { until: now + CACHE_SECONDS * 1000, answer };
      // A failed load is not kept: the next request tries again.
      answer.catch(() => {
        if (cached?.answer === answer) cached = undefined;
      });
    }
    return cached.answer;
  };
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
      const answer = await published();
      reply.header('cache-control', `public, max-age=${CACHE_SECONDS}`);
      return answer;
    },
  );
}
