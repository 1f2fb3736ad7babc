// The routes of the federated sign-in (docs/federation.md): the way out to a provider, its callback, and
// the confirmation page before a link (and its passkey ceremony).
import type { FastifyInstance } from 'fastify';
import { FEDERATION_PREFIX } from '../../federation/callback-uri.js';
import type { FlowDeps } from '../flow-deps.js';
import { interactionRouteOptions as options } from '../interaction-context.js';
import { federationCallback, federationCallbackRouteOptions } from './federation-callback.js';
import { passkeyRouteOptions, type PasskeyBody } from '../passkeys/passkey-json.js';
import { linkPasskeyOptions, linkPasskeyVerify, showLinkConfirmation, submitLinkConfirmation } from './link-confirmation.js';
import { submitContinueWith } from './start-upstream.js';

type Params = { Params: { id: string } };

export function federationRoutes(app: FastifyInstance, deps: FlowDeps): void {
  app.post<Params>('/interaction/:id/federation', options, (request, reply) => submitContinueWith(request, reply, deps));
  app.get<Params>('/interaction/:id/link', options, (request, reply) => showLinkConfirmation(request, reply, deps));
  app.post<Params>('/interaction/:id/link', options, (request, reply) => submitLinkConfirmation(request, reply, deps));
  // The confirmation page's passkey: JSON ceremony endpoints, as on the second-factor page.
  const passkeyOptions = passkeyRouteOptions(options.schema.params);
  app.post<{ Params: { id: string }; Body: PasskeyBody }>('/interaction/:id/link/passkey/options', passkeyOptions, (request, reply) =>
    linkPasskeyOptions(request, reply, deps),
  );
  app.post<{ Params: { id: string }; Body: PasskeyBody }>('/interaction/:id/link/passkey/verify', passkeyOptions, (request, reply) =>
    linkPasskeyVerify(request, reply, deps),
  );
  app.get<{ Params: { slug: string } }>(`${FEDERATION_PREFIX}/:slug/callback`, federationCallbackRouteOptions, (request, reply) =>
    federationCallback(request, reply, deps),
  );
}
