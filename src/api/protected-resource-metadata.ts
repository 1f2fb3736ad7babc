// RFC 9728 protected-resource metadata for the resource API: the document at
// /.well-known/oauth-protected-resource/v1 (3.1: the well-known suffix followed by the resource's path),
// and its address as `resource_metadata` in every 401 challenge of the API (5.1), so a client that only
// knows the API's URL can find the authorization server and the scopes to ask for.
import type { FastifyInstance } from 'fastify';
import type { Config } from '../config.js';
import { DPOP_ALGS } from '../tokens/dpop/proof.js';
import { API_SCOPES } from '../scopes.js';

const PROTECTED_RESOURCE_METADATA_PATH = '/.well-known/oauth-protected-resource/v1';

function protectedResourceMetadata(config: Pick<Config, 'ISSUER' | 'API_AUDIENCE'>): Record<string, unknown> {
  return {
    resource: config.API_AUDIENCE,
    authorization_servers: [config.ISSUER],
    scopes_supported: Object.keys(API_SCOPES),
    bearer_methods_supported: ['header'],
    dpop_signing_alg_values_supported: [...DPOP_ALGS],
    resource_name: 'Gatehouse resource API',
    resource_documentation: `${config.ISSUER}/docs`,
  };
}

/** Adds `resource_metadata` to a 401's (Bearer or DPoP) challenge, after its own parameters. */
function withResourceMetadata(challenge: string, url: string): string {
  if (!/^(Bearer|DPoP)(\s|$)/.test(challenge) || challenge.includes('resource_metadata=')) return challenge;
  const parameter = `resource_metadata="${url}"`;
  return /^(Bearer|DPoP)$/.test(challenge) ? `${challenge} ${parameter}` : `${challenge}, ${parameter}`;
}

export function protectedResourceMetadataRoutes(app: FastifyInstance, config: Pick<Config, 'ISSUER' | 'API_AUDIENCE'>): void {
  const document = JSON.stringify(protectedResourceMetadata(config));
  app.get(PROTECTED_RESOURCE_METADATA_PATH, { schema: { hide: true } }, async (_request, reply) => {
    reply.header('cache-control', 'public, max-age=300').header('access-control-allow-origin', '*');
    return reply.type('application/json; charset=utf-8').send(document);
  });
}

/** Names the document in every 401 of the routes of `scope` (register it in /v1's scope only: it describes /v1). */
export function challengeWithResourceMetadata(scope: FastifyInstance, config: Pick<Config, 'ISSUER'>): void {
  const url = `${config.ISSUER}${PROTECTED_RESOURCE_METADATA_PATH}`;
  scope.addHook('onSend', async (_request, reply, payload) => {
    const challenge = reply.getHeader('www-authenticate');
    if (reply.statusCode === 401 && typeof challenge === 'string') reply.header('www-authenticate', withResourceMetadata(challenge, url));
    return payload;
  });
}
