// GET and POST /authorize (RFC 6749 3.1: both must be supported; OIDC Core 3.1.2.1). The endpoint is
// validate → begin: `begin` (the interaction flow) decides between an immediate answer and the login pages.
// Errors about the client or redirect_uri are pages (face 'page'); all others go to the client in the
// request's response mode (a redirect, or a form_post page).
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Client } from '../../storage/repositories/clients-repository.js';
import type { AuthorizationRequest } from './authorization-request.js';
import { AuthorizationErrorRedirect, errorResponse, type AuthorizationResponse } from './redirect.js';
import { validateAuthorizationRequest, type ValidationDeps } from './validate.js';

export type BeginAuthorization = (
  request: AuthorizationRequest,
  client: Client,
  http: { request: FastifyRequest; reply: FastifyReply },
) => Promise<string | AuthorizationResponse>;

/** Sends the browser to a path of ours (303) or delivers the authorization response in its response mode. */
export type Respond = (reply: FastifyReply, next: string | AuthorizationResponse) => FastifyReply;

// The body of a POST /authorize is only the request's parameters, each bounded (parameters.ts), so it is
// far smaller than the general form limit.
export const AUTHORIZE_BODY_LIMIT = 16_384;

export function authorizeRoutes(app: FastifyInstance, deps: ValidationDeps & { issuer: string; begin: BeginAuthorization; respond: Respond }): void {
  const handle = async (request: FastifyRequest, reply: FastifyReply, source: unknown) => {
    reply.header('cache-control', 'no-store');
    try {
      const { client, request: validated } = await validateAuthorizationRequest(source, deps);
      return deps.respond(reply, await deps.begin(validated, client, { request, reply }));
    } catch (error) {
      if (error instanceof AuthorizationErrorRedirect) {
        request.log.info({ error: error.error.error, reason: error.error.description }, 'authorization request refused');
        return deps.respond(reply, errorResponse(error.target, error.error, deps.issuer));
      }
      throw error;
    }
  };
  // A person's browser calls it: the per-address page budget (src/http/anonymous-limit.ts).
  const config = { face: 'page', limit: 'pages' } as const;
  app.get('/authorize', { config }, (request, reply) => handle(request, reply, request.query));
  app.post('/authorize', { config, bodyLimit: AUTHORIZE_BODY_LIMIT }, (request, reply) => handle(request, reply, request.body));
}
