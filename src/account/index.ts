// The /account face: the signed-in user's own page (account-routes.ts), mounted by app.ts as a plugin of its
// own beside the authorization flow's pages. It shares their browser-session cookie and signs in through the
// same pipeline (src/interaction/sign-in/), which it is handed here rather than importing the flow's face.
import cookie from '@fastify/cookie';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import type { AccountDeps } from './deps.js';
import { ERROR_EDGE_PLUGIN, FORM_BODY_PLUGIN } from '../face-dependencies.js';
import { installPageHeaders } from '../http/browser-pages.js';
import { accountRoutes } from './account-routes.js';
import { mailMode } from '../mail/mail-mode.js';
import { requestEmailChange } from '../self-service/index.js';

async function pages(app: FastifyInstance, { services }: { services: AccountDeps }): Promise<void> {
  // Registered here unless another face already did so at the root (this plugin is encapsulated).
  if (!app.hasRequestDecorator('cookies')) await app.register(cookie);
  installPageHeaders(app, services.flow.brand);
  const { selfService } = services;
  const mailOn = mailMode(services.config) !== 'off';
  accountRoutes(app, {
    ...services.flow,
    users: services.users,
    ...services.account,
    reauthMaxAge: services.config.REAUTH_MAX_AGE,
    store: selfService.store,
    notices: selfService.notices,
    rateLimits: selfService.rateLimits,
    requestEmailChange: mailOn
      ? (user, email, request) => requestEmailChange(selfService, { user, email, acceptLanguage: request.headers['accept-language'], traceId: request.id })
      : undefined,
  });
}

export const accountPages = fp(pages, { name: 'gatehouse-account', encapsulate: true, dependencies: [ERROR_EDGE_PLUGIN, FORM_BODY_PLUGIN] });
