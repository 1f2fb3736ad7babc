// POST /token (RFC 6749 3.2). Only POST (other methods get 405 from the error edge) with a form body;
// every response, success or error, carries Cache-Control: no-store and Pragma: no-cache.
import type { FastifyInstance } from 'fastify';
import type { OAuthDeps } from '../deps.js';
import { authenticateClient } from '../client-auth/index.js';
import { formParameters } from '../form-parameters.js';
import type { TokenResponse } from '../grant-types/grant-type.js';
import { NO_STORE } from '../no-store.js';
import { limitRequest } from '../../http/limit-request.js';
import { dpopBinding } from './dpop-binding.js';
import { checkClientRegisteredFor, declaredParameters, requireGrantType, supportedGrant } from './steps.js';

const tokenResponseSchema = {
  type: 'object',
  required: ['access_token', 'token_type', 'expires_in'],
  properties: {
    access_token: { type: 'string' },
    issued_token_type: { type: 'string' },
    token_type: { type: 'string' },
    expires_in: { type: 'integer' },
    refresh_token: { type: 'string' },
    id_token: { type: 'string' },
    scope: { type: 'string' },
  },
} as const;

export function tokenEndpoint(
  app: FastifyInstance,
  services: Pick<OAuthDeps, 'config' | 'grantTypes' | 'clientAuth' | 'dpop' | 'rateLimits' | 'oauthMetrics' | 'clients'>,
): void {
  const { config, clientAuth: auth, rateLimits } = services;
  const grants = new Map(services.grantTypes.map((grant) => [grant.type as string, grant]));
  const dpop = { ...services.dpop, requireNonce: config.DPOP_NONCE_REQUIRED !== 'off' };
  const tokenEndpointUrl = `${config.ISSUER}/token`;

  app.post(
    '/token',
    { config: { face: 'oauth' }, bodyLimit: config.FORM_BODY_LIMIT, schema: { response: { 200: tokenResponseSchema } } },
    async (request, reply): Promise<TokenResponse> => {
      reply.headers(NO_STORE);
      // RFC 9449 8.2: every answer to a DPoP client, success or error, offers the nonce to use next.
      if (request.headers.dpop !== undefined) reply.header('dpop-nonce', dpop.nonces.current());
      const params = formParameters(request);
      const grantType = requireGrantType(params);
      const client = await authenticateClient(request, params, auth);
      await limitRequest(rateLimits, reply, 'token', client.id);
      const grant = supportedGrant(grantType, grants);
      checkClientRegisteredFor(client, grant);
      const dpopJkt = await dpopBinding(request.headers.dpop, tokenEndpointUrl, dpop);
      const response = await grant.handle({ client, params: declaredParameters(params, grant), ...(dpopJkt ? { dpopJkt } : {}) });
      services.oauthMetrics.tokenIssued(grant.type, client.id);
      // A token issued is a use of the client — the only one that keeps an open client from the unused purge: a
      // user signed in (or approved a device) for it. An anonymous /authorize or /device_authorization naming it
      // is not, or anyone could keep the rows they registered alive for ever (open-client-use.ts).
      await services.clients.noteUse?.(client);
      return response;
    },
  );
}
