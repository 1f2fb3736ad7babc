// The pages of one parked authorization request: GET shows what is needed next; the two POSTs act and
// always answer 303 (RFC 9700 4.12).
import type { FastifyInstance } from 'fastify';
import type { FlowDeps } from './flow-deps.js';
import { interactionRouteOptions as options } from './interaction-context.js';
import { showInteraction } from './steps/show-interaction.js';
import { submitConsent } from './steps/submit-consent.js';
import { submitLogin } from './steps/submit-login.js';
import { submitSecondFactor } from './mfa/interaction-second-factor.js';
import { interactionPasskeyRoutes } from './passkeys/interaction-passkey.js';
import { federationRoutes } from './federation/federation-routes.js';
import { setUpInFlowRoutes } from './mfa/set-up-in-flow.js';

type Params = { Params: { id: string } };

export function interactionRoutes(app: FastifyInstance, deps: FlowDeps): void {
  app.get<Params>('/interaction/:id', options, (request, reply) => showInteraction(request, reply, deps));
  app.post<Params>('/interaction/:id/login', options, (request, reply) => submitLogin(request, reply, deps));
  app.post<Params>('/interaction/:id/second-factor', options, (request, reply) => submitSecondFactor(request, reply, deps));
  app.post<Params>('/interaction/:id/consent', options, (request, reply) => submitConsent(request, reply, deps));
  interactionPasskeyRoutes(app, deps);
  federationRoutes(app, deps);
  setUpInFlowRoutes(app, deps);
}
