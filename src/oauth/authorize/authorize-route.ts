// GET and POST /authorize (RFC 6749 3.1: both must be supported; OIDC Core 3.1.2.1). The endpoint is
// validate → begin: `begin` (the interaction flow) decides between an immediate answer and the login pages.
// Errors about the client or redirect_uri are pages (face 'page'); all others are redirects to the client.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Client } from '../../storage/clients-repository.js';
import type { AuthorizationRequest } from './authorization-request.js';
import { AuthorizationErrorRedirect, errorRedirect, REDIRECT_STATUS } from './redirect.js';
import { validateAuthorizationRequest, type ValidationDeps } from './validate.js';

export type BeginAuthorization = (
  request: AuthorizationRequest,
  client: Client,
  http: { request: FastifyRequest; reply: FastifyReply },
) => Promise<string>;

export function authorizeRoutes(app: FastifyInstance, deps: ValidationDeps & { issuer: string; begin: BeginAuthorization }): void {
  const handle = async (request: FastifyRequest, reply: FastifyReply, source: unknown) => {
    reply.header('cache-control', 'no-store');
    try {
      const { client, request: validated } = await validateAuthorizationRequest(source, deps);
      return reply.redirect(await deps.begin(validated, client, { request, reply }), REDIRECT_STATUS);
    } catch (error) {
      if (error instanceof AuthorizationErrorRedirect) return reply.redirect(errorRedirect(error.target, error.error, deps.issuer), REDIRECT_STATUS);
      throw error;
    }
  };
  app.get('/authorize', { config: { face: 'page' } }, (request, reply) => handle(request, reply, request.query));
  app.post('/authorize', { config: { face: 'page' } }, (request, reply) => handle(request, reply, request.body));
}
