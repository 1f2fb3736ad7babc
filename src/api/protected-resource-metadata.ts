// RFC 9728 protected-resource metadata for the resource API: the document at
// /.well-known/oauth-protected-resource/v1 (3.1: the well-known suffix followed by the resource's path),
// and its address as `resource_metadata` in every 401 and 403 challenge of the API (5.1), so a client that only
// knows the API's URL can find the authorization server and the scopes to ask for. Every other resource
// server's document is served by the authorization server (src/oauth/resources/metadata-routes.ts); this one
// stays with the API, which can run apart from it, and keeps its documentation link.
import type { FastifyInstance } from 'fastify';
import type { Config } from '../config.js';
import { API_SCOPES } from '../scopes.js';
import {
  challengeWithResourceMetadata as challengeWith,
  protectedResourceMetadataDocument,
  sendMetadata,
} from '../resource-server/protected-resource-metadata.js';

const PROTECTED_RESOURCE_METADATA_PATH = '/.well-known/oauth-protected-resource/v1';

function protectedResourceMetadata(config: Pick<Config, 'ISSUER' | 'API_AUDIENCE'>): Record<string, unknown> {
  return {
    ...protectedResourceMetadataDocument({ identifier: config.API_AUDIENCE, name: 'Gatehouse resource API', scopes: Object.keys(API_SCOPES) }, config.ISSUER),
    resource_documentation: `${config.ISSUER}/docs`,
  };
}

export function protectedResourceMetadataRoutes(app: FastifyInstance, config: Pick<Config, 'ISSUER' | 'API_AUDIENCE'>): void {
  const document = JSON.stringify(protectedResourceMetadata(config));
  app.get(PROTECTED_RESOURCE_METADATA_PATH, { schema: { hide: true } }, async (_request, reply) => sendMetadata(reply, document));
}

/** Names the document in every 401/403 of the routes of `scope` (register it in /v1's scope only: it describes /v1). */
export function challengeWithResourceMetadata(scope: FastifyInstance, config: Pick<Config, 'ISSUER'>): void {
  challengeWith(scope, `${config.ISSUER}${PROTECTED_RESOURCE_METADATA_PATH}`);
}
