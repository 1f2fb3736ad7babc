// The administration services both faces call (CLI commands and /admin/v1), built from an AdminCore (deps.ts).
import { userInfo } from 'node:os';
import type { AdminCore } from './deps.js';
import type { AuditSink } from '../audit/audit-sink.js';
import type { Actor } from '../audit/audit-events.js';
import type { ClientServiceDeps } from './clients-service.js';
import type { UserServiceDeps } from './users-service.js';
import type { SigningKeyServiceDeps } from './signing-keys-service.js';
import type { UserAccessServiceDeps } from './user-access-service.js';
import type { ResourceServerServiceDeps } from './resource-servers-service.js';
import type { IdentityProviderServiceDeps } from './identity-providers-service.js';
import type { OperatorRoleServiceDeps } from './operator-roles-service.js';
import type { WebhookServiceDeps } from './webhooks-service.js';

export { AdminFieldErrors, AdminRuleError } from './rule-error.js';
export * from './clients-service.js';
export * from './users-service.js';
export * from './signing-keys-service.js';
export * from './user-access-service.js';
export * from './resource-servers-service.js';
export * from './identity-providers-service.js';
export * from './operator-roles-service.js';
export * from './webhooks-service.js';
export type { AdminCore } from './deps.js';

/** The core's sink: the database, plus the server's log (the CLI keeps stdout for its result). */
export const coreAuditSink = (core: Pick<AdminCore, 'audit'>): AuditSink => core.audit;

export const clientServiceDeps = (core: AdminCore, audit: AuditSink): ClientServiceDeps => ({
  store: core.store,
  clock: core.clock,
  config: core.config,
  clients: core.clients,
  outbound: core.outbound,
  resources: core.resources,
  audit,
});

export const userServiceDeps = (core: AdminCore, audit: AuditSink): UserServiceDeps => ({
  store: core.store,
  clock: core.clock,
  rateLimits: core.rateLimits,
  audit,
  outbox: core.outbox,
});
export const signingKeyServiceDeps = (core: Pick<AdminCore, 'store' | 'keys'>, audit: AuditSink): SigningKeyServiceDeps => ({
  store: core.store,
  keys: core.keys,
  audit,
});

export const operatorRoleServiceDeps = (core: Pick<AdminCore, 'store' | 'clock'>, audit: AuditSink): OperatorRoleServiceDeps => ({
  store: core.store,
  clock: core.clock,
  audit,
});
export const userAccessServiceDeps = (
  core: Pick<AdminCore, 'store' | 'clock'> & Partial<Pick<AdminCore, 'outbox'>>,
  audit: AuditSink,
): UserAccessServiceDeps => ({
  store: core.store,
  clock: core.clock,
  audit,
  outbox: core.outbox,
});
export const resourceServerServiceDeps = (core: AdminCore, audit: AuditSink): ResourceServerServiceDeps => ({
  store: core.store,
  clock: core.clock,
  config: core.config,
  clients: core.clients,
  resources: core.resources,
  audit,
});

export const identityProviderServiceDeps = (
  core: Pick<AdminCore, 'store' | 'clock' | 'config' | 'outbound'>,
  audit: AuditSink,
): IdentityProviderServiceDeps => ({
  store: core.store,
  clock: core.clock,
  config: core.config,
  outbound: core.outbound,
  audit,
});

export const webhookServiceDeps = (
  core: Pick<AdminCore, 'store' | 'clock' | 'config' | 'outbound' | 'keyEncryptionKey'>,
  audit: AuditSink,
): WebhookServiceDeps => ({
  store: core.store,
  clock: core.clock,
  config: core.config,
  outbound: core.outbound,
  keyEncryptionKey: core.keyEncryptionKey,
  audit,
});

/** The CLI acts as the operating-system user who ran it. */
export function cliActor(): Actor {
  let user = 'unknown';
  try {
    user = userInfo().username;
  } catch {
    // No passwd entry (some containers): the event still records that the CLI acted.
  }
  return { kind: 'cli', user };
}
