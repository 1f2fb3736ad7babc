// POST /introspect (RFC 7662). Only an authenticated confidential client may ask, and only about its own
// tokens: anything else — unknown, expired, revoked, another client's — is {"active": false} (RFC 7662 2.2).
// A resource server's own client asks about the access tokens of its audience instead (resources/introspection.ts).
import type { FastifyInstance } from 'fastify';
import type { OAuthDeps } from './deps.js';
import { authenticateClient } from './client-auth/index.js';
import { formParameters } from './form-parameters.js';
import { NO_STORE } from './no-store.js';
import { limitRequest } from '../http/limit-request.js';
import { requireToken } from './revoke.js';
import type { IntrospectionResult } from './token-type-handler.js';
import { inHintOrder, INTROSPECTION_AUTH_METHODS } from './revocable-token-types.js';
import { resourceServerIntrospection } from './resources/introspection.js';

export function introspectionEndpoint(
  app: FastifyInstance,
  services: Pick<OAuthDeps, 'config' | 'tokenTypes' | 'clientAuth' | 'rateLimits' | 'resources' | 'bearerTokens'>,
): void {
  const handlers = services.tokenTypes;
  const auth = { ...services.clientAuth, methods: INTROSPECTION_AUTH_METHODS };
  const forResourceServers = resourceServerIntrospection({ resources: services.resources, verify: services.bearerTokens, issuer: services.config.ISSUER });
  app.post('/introspect', { config: { face: 'oauth' }, bodyLimit: services.config.FORM_BODY_LIMIT }, async (request, reply) => {
    reply.headers(NO_STORE);
    const params = formParameters(request);
    const client = await authenticateClient(request, params, auth);
    await limitRequest(services.rateLimits, reply, 'introspection', client.id);
    const token = requireToken(params);
    let result: IntrospectionResult | { active: false } = { active: false };
    const audience = await forResourceServers.audienceOf(client.id);
    if (audience !== undefined) result = await forResourceServers.introspect(token, audience);
    else
      for (const handler of inHintOrder(handlers, params.token_type_hint)) {
        const found = await handler.introspect(token, client);
        if (found) {
          result = found;
          break;
        }
      }
    return reply.type('application/json; charset=utf-8').send(JSON.stringify(result));
  });
}
