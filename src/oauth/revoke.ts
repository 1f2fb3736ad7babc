// POST /revoke (RFC 7009). The client authenticates; each token type is asked in hint order. Unknown,
// garbage, already revoked and other clients' tokens all answer 200 with no effect (RFC 7009 2.2).
import type { FastifyInstance } from 'fastify';
import type { OAuthDeps } from './deps.js';
import { OAuthError } from '../http/errors.js';
import { authenticateClient } from './client-auth/index.js';
import { formParameters } from './form-parameters.js';
import { NO_STORE } from './no-store.js';
import { limitRequest } from '../http/limit-request.js';
import { inHintOrder, REVOCATION_AUTH_METHODS } from './revocable-token-types.js';

export function requireToken(params: Readonly<Record<string, string>>): string {
  if (params.token === undefined) throw new OAuthError('invalid_request', 'The token parameter is required.');
  return params.token;
}

export function revocationEndpoint(app: FastifyInstance, services: Pick<OAuthDeps, 'config' | 'tokenTypes' | 'clientAuth' | 'rateLimits'>): void {
  const handlers = services.tokenTypes;
  const auth = { ...services.clientAuth, methods: REVOCATION_AUTH_METHODS };
  app.post('/revoke', { config: { face: 'oauth' }, bodyLimit: services.config.FORM_BODY_LIMIT }, async (request, reply) => {
    reply.headers(NO_STORE);
    const params = formParameters(request);
    const client = await authenticateClient(request, params, auth);
    await limitRequest(services.rateLimits, reply, 'introspection', client.id);
    const token = requireToken(params);
    for (const handler of inHintOrder(handlers, params.token_type_hint)) {
      if (await handler.revoke(token, client)) break;
    }
    return reply.code(200).send();
  });
}
