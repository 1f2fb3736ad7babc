// POST /device_authorization (RFC 8628 3.1-3.2). The client authenticates as at /token (a confidential
// client with its registered method, a public client by client_id), must be registered for the device_code
// grant, and asks for scopes (and at most one resource, RFC 8707) checked as /authorize checks them. The
// answer names the page where the user enters the code; verification_uri_complete carries the code, but the
// page still asks the user to confirm it (RFC 8628 5.4, docs/device-flow.md).
import type { FastifyInstance } from 'fastify';
import type { OAuthDeps } from '../deps.js';
import { OAuthError } from '../../http/errors.js';
import { limitRequest } from '../../http/limit-request.js';
import { DEVICE_CODE_GRANT } from '../../storage/repositories/clients-repository.js';
import { checkResources } from '../authorize/check-resource.js';
import { checkScope } from '../authorize/check-scope.js';
import { authenticateClient } from '../client-auth/index.js';
import { formParameters } from '../form-parameters.js';
import { NO_STORE } from '../no-store.js';
import { DEVICE_PAGE_PATH, deviceAuthorizationStarter } from './device-authorizations.js';
import { formatUserCode } from './user-code.js';

const DEVICE_AUTHORIZATION_PATH = '/device_authorization';

const responseSchema = {
  type: 'object',
  required: ['device_code', 'user_code', 'verification_uri', 'verification_uri_complete', 'expires_in', 'interval'],
  properties: {
    device_code: { type: 'string' },
    user_code: { type: 'string' },
    verification_uri: { type: 'string' },
    verification_uri_complete: { type: 'string' },
    expires_in: { type: 'integer' },
    interval: { type: 'integer' },
  },
} as const;

export function deviceAuthorizationEndpoint(
  app: FastifyInstance,
  services: Pick<OAuthDeps, 'config' | 'clock' | 'clientAuth' | 'rateLimits' | 'resources' | 'deviceAuthorizations'>,
): void {
  const { config, clientAuth, rateLimits, resources } = services;
  const start = deviceAuthorizationStarter({ repository: services.deviceAuthorizations, clock: services.clock, config });
  const verificationUri = `${config.ISSUER}${DEVICE_PAGE_PATH}`;

  app.post(
    DEVICE_AUTHORIZATION_PATH,
    { config: { face: 'oauth' }, bodyLimit: config.FORM_BODY_LIMIT, schema: { response: { 200: responseSchema } } },
    async (request, reply) => {
      reply.headers(NO_STORE);
      const params = formParameters(request);
      const client = await authenticateClient(request, params, clientAuth);
      // Each started authorization is a row: it draws on the client's /token budget.
      await limitRequest(rateLimits, reply, 'token', client.id);
      if (!client.grantTypes.includes(DEVICE_CODE_GRANT)) throw new OAuthError('unauthorized_client', `The client is not registered for ${DEVICE_CODE_GRANT}.`);
      const catalogue = await resources.catalogue();
      const scope = checkScope({ values: { scope: params.scope }, duplicates: new Set() }, client, catalogue);
      const [resource] = checkResources(params, scope, catalogue, client);
      const started = await start({ clientId: client.id, scope, resource: resource ?? null });
      const userCode = formatUserCode(started.userCode);
      return {
        device_code: started.deviceCode,
        user_code: userCode,
        verification_uri: verificationUri,
        verification_uri_complete: `${verificationUri}?${new URLSearchParams({ user_code: userCode }).toString()}`,
        expires_in: started.expiresIn,
        interval: started.interval,
      };
    },
  );
}
