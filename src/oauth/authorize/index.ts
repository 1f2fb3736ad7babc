// The authorization endpoint as the authorization server registers it. What happens once a request is
// valid — an immediate answer, or the login and consent pages — is the interaction flow's, handed in by the
// composition root (src/services.ts) as `authorization.begin`/`respond`, so this face imports no pages.
// The browser reaches /authorize directly: it gets the pages' security headers, and cookies are parsed here
// (the browser session) as in the interaction face, and nowhere else in this face.
import cookie from '@fastify/cookie';
import type { FastifyInstance } from 'fastify';
import type { OAuthDeps } from '../deps.js';
import { installPageHeaders } from '../../http/browser-pages.js';
import { authorizeRoutes } from './authorize-route.js';

export type AuthorizeServices = Pick<OAuthDeps, 'config' | 'keys' | 'clients' | 'brand' | 'authorization' | 'resources'>;

export async function authorizationEndpoint(app: FastifyInstance, services: AuthorizeServices): Promise<void> {
  const { config } = services;
  // A named plugin: Fastify (and a trace's span names) would otherwise call it by its source text.
  await app.register(async function authorizationEndpointPages(scope) {
    await scope.register(cookie);
    installPageHeaders(scope, services.brand);
    authorizeRoutes(scope, {
      issuer: config.ISSUER,
      sessionTtlSeconds: config.SESSION_TTL,
      jwks: () => services.keys.jwks(),
      clients: services.clients,
      resources: services.resources,
      ...services.authorization,
    });
  });
}
