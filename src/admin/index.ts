// The admin API face, /admin/v1: a resource server for the audience `{ISSUER}/admin` (scopes admin:read,
// admin:write) under the same HTTP conventions as /v1 — Problem Details, ETags with required If-Match,
// required Idempotency-Key on creates, cursor pages (docs/admin-api.md). Routes call the services the CLI
// calls (src/admin-services/).
import type { FastifyInstance } from 'fastify';
import type { AdminDeps } from './deps.js';
import { resourceServerAuth } from '../resource-server/auth/index.js';
import { installApiConventions } from '../resource-server/conventions.js';
import { collectOptionsRoutes } from '../resource-server/options-route.js';
import { limitPerSubject } from '../resource-server/subject-limit.js';
import { adminAudience } from '../scopes.js';
import {
  clientServiceDeps,
  coreAuditSink,
  identityProviderServiceDeps,
  resourceServerServiceDeps,
  signingKeyServiceDeps,
  userAccessServiceDeps,
  userServiceDeps,
  webhookServiceDeps,
} from '../admin-services/index.js';
import { adminClientsRoutes } from './clients/index.js';
import { auditEventsRoutes } from './audit-events/index.js';
import { adminOutboxRoutes } from './outbox/index.js';
import { adminInvitationsRoutes } from './invitations/index.js';
import { invitationDeps, INVITATION_PURGE_INTERVAL_MS, purgeOldAccountTokens } from '../invitations/invitations.js';
import { adminUsersRoutes } from './users/index.js';
import { adminSigningKeysRoutes } from './signing-keys/index.js';
import { adminGrantsRoutes } from './grants/index.js';
import { adminSessionsRoutes } from './sessions/index.js';
import { adminConsentsRoutes } from './consents/index.js';
import { adminResourceServersRoutes } from './resource-servers/index.js';
import { adminIdentityProvidersRoutes } from './identity-providers/index.js';
import { adminWebhooksRoutes } from './webhooks/index.js';
import { AUDIT_PURGE_INTERVAL_MS, purgeExpiredAuditEvents } from '../audit/retention.js';

import { challengeWithResourceMetadata, protectedResourceMetadataUrl } from '../resource-server/protected-resource-metadata.js';

export const ADMIN_PREFIX = '/admin/v1';

export async function adminApi(app: FastifyInstance, { services: core }: { services: AdminDeps }): Promise<void> {
  // Always this process's own keys: the admin API lives in the authorization server.
  installApiConventions(app, resourceServerAuth({ ...core, revocations: core.revocationFeed }, { audience: adminAudience(core.config.ISSUER) }));
  // RFC 9728 5.1: every 401/403 challenge names the admin audience's protected-resource metadata.
  challengeWithResourceMetadata(app, protectedResourceMetadataUrl(adminAudience(core.config.ISSUER), core.config.ISSUER));
  limitPerSubject(app, core.rateLimits);
  const audit = coreAuditSink(core);
  core.jobs.every('audit-purge', AUDIT_PURGE_INTERVAL_MS, () =>
    purgeExpiredAuditEvents({ store: core.store, clock: core.clock, retentionSeconds: core.config.AUDIT_RETENTION }),
  );
  core.jobs.every('account-tokens-purge', INVITATION_PURGE_INTERVAL_MS, () => purgeOldAccountTokens(core));
  const registerOptionsRoutes = collectOptionsRoutes(app);
  await app.register(adminClientsRoutes, { core, services: clientServiceDeps(core, audit) });
  await app.register(auditEventsRoutes, { core });
  await app.register(adminOutboxRoutes, { core });
  await app.register(adminUsersRoutes, { core, services: userServiceDeps(core, audit) });
  await app.register(adminInvitationsRoutes, { core, services: invitationDeps({ ...core, audit }) });
  await app.register(adminSigningKeysRoutes, { core, services: signingKeyServiceDeps(core, audit) });
  for (const routes of [adminGrantsRoutes, adminSessionsRoutes, adminConsentsRoutes])
    await app.register(routes, { core, services: userAccessServiceDeps(core, audit) });
  await app.register(adminResourceServersRoutes, { core, services: resourceServerServiceDeps(core, audit) });
  await app.register(adminIdentityProvidersRoutes, { core, services: identityProviderServiceDeps(core, audit) });
  await app.register(adminWebhooksRoutes, { core, services: webhookServiceDeps(core, audit) });
  registerOptionsRoutes(); // stays last: one OPTIONS route per resource URL registered above
}
