// The browser face: the login and consent pages of an interaction (which /authorize, registered by the
// authorization server, starts through `services.authorization`), RP-initiated logout, browser sessions and
// CSRF. Cookies are parsed only inside this face and on /authorize.
import cookie from '@fastify/cookie';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import type { InteractionDeps } from './deps.js';
import { ERROR_EDGE_PLUGIN, FORM_BODY_PLUGIN, JOBS_PLUGIN } from '../face-dependencies.js';
import { installPageHeaders } from '../http/browser-pages.js';
import { interactionRoutes } from './interaction-routes.js';
import { logoutRoutes } from './logout/logout-routes.js';
import { passkeyAssetRoutes } from './passkeys/passkey-assets.js';
import { deviceRoutes } from './device/device-routes.js';

export { INTERACTION_TTL_SECONDS } from './flow-deps.js';

async function pages(app: FastifyInstance, { services }: { services: InteractionDeps }): Promise<void> {
  // Registered here unless another face already did so at the root (the plugin is not encapsulated).
  if (!app.hasRequestDecorator('cookies')) await app.register(cookie);
  const { config, clients, sessions, flow: deps } = services;
  const { brand } = deps;
  installPageHeaders(app, brand);
  const hints = { issuer: config.ISSUER, sessionTtlSeconds: config.SESSION_TTL, jwks: () => services.keys.jwks() };
  interactionRoutes(app, deps);
  deviceRoutes(app, deps, services.rateLimits);
  passkeyAssetRoutes(app);
  logoutRoutes(app, { ...hints, brand, sessions, clients });
}

export const interactionPages = fp(pages, {
  name: 'gatehouse-interaction',
  encapsulate: true,
  dependencies: [ERROR_EDGE_PLUGIN, FORM_BODY_PLUGIN, JOBS_PLUGIN],
});
