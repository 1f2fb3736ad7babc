// The /account face: the signed-in user's own page (account-routes.ts), mounted by app.ts as a plugin of its
// own beside the authorization flow's pages. It shares their browser-session cookie and signs in through the
// same pipeline (src/interaction/sign-in/), which it is handed here rather than importing the flow's face.
import cookie from '@fastify/cookie';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import type { Services } from '../services.js';
import { ERROR_EDGE_PLUGIN, FORM_BODY_PLUGIN } from '../face-dependencies.js';
import { installPageHeaders } from '../http/browser-pages.js';
import { accountRoutes } from './account-routes.js';

export type AccountServices = Pick<Services, 'config' | 'flow' | 'users' | 'account'>;

async function pages(app: FastifyInstance, { services }: { services: AccountServices }): Promise<void> {
  // Registered here unless another face already did so at the root (this plugin is encapsulated).
  if (!app.hasRequestDecorator('cookies')) await app.register(cookie);
  installPageHeaders(app, services.flow.brand);
  accountRoutes(app, { ...services.flow, users: services.users, ...services.account, reauthMaxAge: services.config.REAUTH_MAX_AGE });
}

export const accountPages = fp(pages, { name: 'gatehouse-account', encapsulate: true, dependencies: [ERROR_EDGE_PLUGIN, FORM_BODY_PLUGIN] });
