// The browser face: /authorize (whose answer may need the user), the login and consent pages of an
// interaction, RP-initiated logout, browser sessions and CSRF. Cookies are parsed only inside this face.
import cookie from '@fastify/cookie';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import type { Services } from '../services.js';
import { ERROR_EDGE_PLUGIN, FORM_BODY_PLUGIN, JOBS_PLUGIN } from '../face-dependencies.js';
import { allowLogo } from '../http/brand.js';
import { pageSecurityHeaders } from '../http/html.js';
import { authorizeRoutes } from '../oauth/authorize/authorize-route.js';
import { sendNext } from './answer.js';
import { beginAuthorization } from './begin.js';
import { interactionRoutes } from './interaction-routes.js';
import { logoutRoutes } from './logout/logout-routes.js';

export { INTERACTION_TTL_SECONDS } from './flow-deps.js';

export type InteractionServices = Pick<Services, 'config' | 'keys' | 'clients' | 'sessions' | 'flow'>;

async function pages(app: FastifyInstance, { services }: { services: InteractionServices }): Promise<void> {
  // Registered here unless another face already did so at the root (the plugin is not encapsulated).
  if (!app.hasRequestDecorator('cookies')) await app.register(cookie);
  const { config, clients, sessions, flow: deps } = services;
  const { brand } = deps;
  // Every answer of this face — pages, error pages, redirects — is unframeable, uncached and script-free
  // (a page may have set a stricter or more specific variant already).
  app.addHook('onSend', async (_request, reply, payload) => {
    for (const [name, value] of Object.entries(pageSecurityHeaders)) if (!reply.hasHeader(name)) reply.header(name, value);
    allowLogo(reply, brand);
    return payload;
  });

  const hints = { issuer: config.ISSUER, sessionTtlSeconds: config.SESSION_TTL, jwks: () => services.keys.jwks() };
  authorizeRoutes(app, {
    ...hints,
    clients,
    apiAudience: config.API_AUDIENCE,
    begin: (request, client, http) => beginAuthorization(request, client, http, deps),
    respond: (reply, next) => sendNext(reply, next, { issuer: config.ISSUER, brand }),
  });
  interactionRoutes(app, deps);
  logoutRoutes(app, { ...hints, brand, sessions, clients });
}

export const interactionPages = fp(pages, { name: 'gatehouse-interaction', encapsulate: true, dependencies: [ERROR_EDGE_PLUGIN, FORM_BODY_PLUGIN, JOBS_PLUGIN] });
