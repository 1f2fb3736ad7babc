// A user's access as the operator sees it — grants, browser sessions, consents — written once for the
// admin API (/admin/v1/grants, /sessions, /consents): lists, reads, and the version-guarded ends, each with
// its audit event in the same transaction (docs/admin-api.md, docs/grant-revocation.md).
//
// Of two parallel ends of one thing with the same ETag, exactly one succeeds; the other finds it gone and
// is `not-found` (a revoked grant or an ended session has no state left to be stale against).
import type { OutboxWriter } from '../outbox/writer.js';
import { announceLogout } from '../user-rules/backchannel-logout.js';
import type { Clock } from '../clock.js';
import type { Store } from '../storage/store.js';
import type { GrantRecord } from '../storage/repositories/grants-repository.js';
import type { AdminConsent, AdminSession, OwnerFilter, PageAfter } from '../storage/repositories/user-access-admin-repository.js';
import type { AuditSink } from '../audit/audit-sink.js';
import type { AuditEventInput } from '../audit/audit-events.js';
import { AdminRuleError } from './rule-error.js';
import type { ActingAs } from './clients-service.js';

export interface UserAccessServiceDeps {
  store: Store;
  clock: Clock;
  audit: AuditSink;
  /** Where the logout tokens of an ended session are queued (docs/backchannel-logout.md). */
  outbox?: Pick<OutboxWriter, 'enqueue'> | undefined;
}

const repository = (deps: Pick<UserAccessServiceDeps, 'store' | 'clock'>) => deps.store.userAccessAdmin;

const event = (type: AuditEventInput['type'], resource: string, id: string, about: { userId: string; clientId?: string }, as: ActingAs): AuditEventInput => ({
  type,
  actor: as.actor,
  resource,
  resourceId: id,
  subject: about.userId,
  ...(about.clientId !== undefined ? { clientId: about.clientId } : {}),
  ...(as.traceId ? { traceId: as.traceId } : {}),
});

/** A list filter needs an owner: the whole table is not a page anyone should walk by accident. */
function owner(filter: OwnerFilter, allowed: 'user' | 'user-or-client'): OwnerFilter {
  if (filter.userId === undefined && (allowed === 'user' || filter.clientId === undefined)) {
    throw new AdminRuleError('invalid', allowed === 'user' ? 'is required' : 'user_id or client_id is required', 'user_id');
  }
  return filter;
}

/** How the admin API and the CLI show a grant, a session and a consent (snake_case, times in RFC 3339). */
export const grantView = (g: GrantRecord) => ({
  id: g.id,
  user_id: g.userId,
  client_id: g.clientId,
  scope: g.scope.join(' '),
  resource: g.resource,
  auth_time: g.authTime.toISOString(),
  created_at: g.createdAt.toISOString(),
  expires_at: g.expiresAt.toISOString(),
});

export const sessionView = (s: AdminSession) => ({
  id: s.id,
  user_id: s.userId,
  user_agent: s.userAgent,
  ip_address: s.ipAddress,
  amr: s.amr,
  created_at: s.createdAt.toISOString(),
  signed_in_at: s.signedInAt?.toISOString() ?? null,
  expires_at: s.expiresAt.toISOString(),
});

export const consentView = (c: AdminConsent) => ({
  id: c.id,
  user_id: c.userId,
  client_id: c.clientId,
  scope: c.scopes.join(' '),
  granted_at: c.grantedAt.toISOString(),
});

export const listGrants = (deps: Pick<UserAccessServiceDeps, 'store' | 'clock'>, filter: OwnerFilter, page: PageAfter) =>
  repository(deps).grants(owner(filter, 'user-or-client'), page);

export async function findGrant(deps: Pick<UserAccessServiceDeps, 'store' | 'clock'>, id: string): Promise<GrantRecord> {
  const grant = await repository(deps).grant(id);
  if (!grant) throw new AdminRuleError('not-found', `no grant ${id}`);
  return grant;
}

/** Ends the grant and every token issued under it: refresh tokens fail, access tokens are on the revocation list. */
export async function revokeGrant(deps: UserAccessServiceDeps, grant: GrantRecord, as: ActingAs): Promise<void> {
  await deps.store.transaction(async (tx) => {
    if (!(await repository({ ...deps, store: tx }).revokeGrant(grant.id))) throw new AdminRuleError('not-found', `no grant ${grant.id}`);
    await deps.audit.emit(event('admin.grant.revoked', 'grant', grant.id, grant, as), { tx });
  });
}

export const listSessions = (deps: Pick<UserAccessServiceDeps, 'store' | 'clock'>, filter: { userId?: string }, page: PageAfter) =>
  repository(deps).sessions(owner(filter, 'user').userId!, page);

export async function findSession(deps: Pick<UserAccessServiceDeps, 'store' | 'clock'>, id: string): Promise<AdminSession> {
  const session = await repository(deps).session(id);
  if (!session) throw new AdminRuleError('not-found', 'no such session');
  return session;
}

/** Ends a signed-in browser session: its cookie finds nothing any more, so the browser must sign in again. */
export async function endSession(deps: UserAccessServiceDeps, session: AdminSession, as: ActingAs): Promise<void> {
  await deps.store.transaction(async (tx) => {
    const sid = await repository({ ...deps, store: tx }).endSession(session.id);
    if (sid === undefined) throw new AdminRuleError('not-found', 'no such session');
    // The grants the session gave name its sid and outlive its row.
    if (deps.outbox) await announceLogout({ outbox: deps.outbox, clock: deps.clock }, tx, { sid });
    // The sid names the session as the relying parties know it (the same detail as the user's session.ended).
    await deps.audit.emit({ ...event('admin.session.ended', 'session', session.id, session, as), details: { sid } }, { tx });
  });
}

export const listConsents = (deps: Pick<UserAccessServiceDeps, 'store' | 'clock'>, filter: OwnerFilter, page: PageAfter) =>
  repository(deps).consents(owner(filter, 'user-or-client'), page);

export async function findConsent(deps: Pick<UserAccessServiceDeps, 'store' | 'clock'>, id: string): Promise<AdminConsent> {
  const consent = await repository(deps).consent(id);
  if (!consent) throw new AdminRuleError('not-found', `no consent ${id}`);
  return consent;
}

/**
 * Revokes the consent if it is still as read, and with it every grant of that user at that client — as
 * the account page's "revoke app" does: a consent withdrawn while its tokens live on would mean nothing.
 */
export async function revokeConsent(deps: UserAccessServiceDeps, consent: AdminConsent, as: ActingAs): Promise<void> {
  await deps.store.transaction(async (tx) => {
    const revoked = await repository({ ...deps, store: tx }).revokeConsent(consent.id, consent.grantedAt);
    if (revoked === 'stale') throw new AdminRuleError('stale', 'the consent changed since it was read');
    if (!revoked) throw new AdminRuleError('not-found', `no consent ${consent.id}`);
    await deps.audit.emit(event('consent.revoked', 'consent', consent.id, consent, as), { tx });
  });
}
