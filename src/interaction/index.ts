// The browser face: /authorize (whose answer may need the user), the login and consent pages of an
// interaction, RP-initiated logout, browser sessions and CSRF. Cookies are parsed only inside this face.
import cookie from '@fastify/cookie';
import type { FastifyInstance } from 'fastify';
import type { Core } from '../core.js';
import { allowLogo, brandFromConfig } from '../http/brand.js';
import { pageSecurityHeaders } from '../http/html.js';
import { authorizeRoutes } from '../oauth/authorize/authorize-route.js';
import type { AuthorizationRequest } from '../oauth/authorize/authorization-request.js';
import { authorizationCodes } from '../oauth/codes/index.js';
import { browserSessionsRepository } from '../storage/browser-sessions-repository.js';
import { consentsRepository } from '../storage/consents-repository.js';
import { interactionsRepository } from '../storage/interactions-repository.js';
import { usersRepository } from '../storage/users-repository.js';
import { secondFactorsRepository } from '../storage/second-factors-repository.js';
import { keyEncryption, resolveKeyEncryptionKey } from '../crypto/key-encryption.js';
import { secondFactors } from './mfa/second-factors.js';
import { accountRoutes } from '../account/account-routes.js';
import { accountPasswordChange } from '../account/account-password.js';
import { accountRepository } from '../storage/account-repository.js';
import { sendNext } from './answer.js';
import { beginAuthorization } from './begin.js';
import type { FlowDeps } from './flow-deps.js';
import { interactionRoutes } from './interaction-routes.js';
import { rateLimitedLogins } from './login/rate-limited-logins.js';
import { logoutRoutes } from './logout/logout-routes.js';
import { browserSessions } from './session/browser-sessions.js';

/** A started login/consent may take this long (capped by the session lifetime). */
export const INTERACTION_TTL_SECONDS = 1800;

export async function interactionPages(app: FastifyInstance, { core }: { core: Core }): Promise<void> {
  // Registered here unless another face already did so at the root (the plugin is not encapsulated).
  if (!app.hasRequestDecorator('cookies')) await app.register(cookie);
  const brand = brandFromConfig(core.config);
  // Every answer of this face — pages, error pages, redirects — is unframeable, uncached and script-free
  // (a page may have set a stricter or more specific variant already).
  app.addHook('onSend', async (_request, reply, payload) => {
    for (const [name, value] of Object.entries(pageSecurityHeaders)) if (!reply.hasHeader(name)) reply.header(name, value);
    allowLogo(reply, brand);
    return payload;
  });
  const { config, clock, db } = core;
  const { clients } = core;
  const sessions = browserSessions({ repository: browserSessionsRepository(db, clock), issuer: config.ISSUER, ttlSeconds: config.SESSION_TTL, clock });
  const deps: FlowDeps = {
    issuer: config.ISSUER,
    brand,
    apiAudience: config.API_AUDIENCE,
    clock,
    interactionTtlSeconds: Math.min(INTERACTION_TTL_SECONDS, config.SESSION_TTL),
    sessions,
    interactions: interactionsRepository<AuthorizationRequest>(db, clock),
    consents: consentsRepository(db, clock),
    clients,
    users: usersRepository(db, clock),
    codes: authorizationCodes({ db, clock, config }),
    loginGuard: rateLimitedLogins(core.rateLimits),
    secondFactors: secondFactors({ repository: secondFactorsRepository(db, clock), encryption: keyEncryption(resolveKeyEncryptionKey(config)), clock, issuerName: brand.name }),
  };

  const hints = { issuer: config.ISSUER, sessionTtlSeconds: config.SESSION_TTL, jwks: () => core.keys.jwks() };
  authorizeRoutes(app, {
    ...hints,
    clients,
    apiAudience: config.API_AUDIENCE,
    begin: (request, client, http) => beginAuthorization(request, client, http, deps),
    respond: (reply, next) => sendNext(reply, next, { issuer: config.ISSUER, brand }),
  });
  interactionRoutes(app, deps);
  logoutRoutes(app, { ...hints, brand, sessions, clients });
  accountRoutes(app, {
    ...deps,
    users: usersRepository(db, clock),
    account: accountRepository(db, clock),
    changePassword: accountPasswordChange({ db, clock, rateLimits: core.rateLimits }),
  });
}
