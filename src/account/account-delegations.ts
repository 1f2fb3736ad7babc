// The account page's "Apps acting for you" (docs/token-exchange.md): the delegations token exchange made in the
// user's name — which client acts, at which API, since when, with which scopes, and whether it impersonates —
// each with a "Revoke" button. Revoking takes access away, like revoking an app, so it needs no fresh proof:
// the delegation and every one below it are marked revoked and their live tokens go to the revocation list
// (src/storage/delegations-repository.ts), audited as delegation.revoked in the same transaction.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { escapeHtml } from '../http/html.js';
import { formField } from '../interaction/csrf.js';
import { seeOther } from '../interaction/interaction-context.js';
import { hiddenInput } from '../interaction/pages/layout.js';
import type { Store } from '../storage/store.js';
import type { Delegation } from '../storage/repositories/delegations-repository.js';
import type { User } from '../storage/repositories/users-repository.js';
import type { AuditSink } from '../audit/audit-sink.js';
import type { SignedIn } from './account-session.js';

/** The page lists at most this many (newest first); a user with more revokes the app (its grant) instead. */
export const MAX_LISTED_DELEGATIONS = 50;

const when = (date: Date) => `${escapeHtml(date.toISOString().slice(0, 16).replace('T', ' '))} UTC`;

export function delegationsSection(delegations: readonly Delegation[], csrf: string): string {
  if (delegations.length === 0) return '<p class="muted" id="delegations">No app is acting for you at another service.</p>';
  const items = delegations.map((d) => {
    const client = escapeHtml(d.clientName ?? d.clientId);
    const api = escapeHtml(d.audienceName ?? d.audience);
    const how = d.actor === null ? ' <strong>as you</strong> (impersonation)' : '';
    const revoke = `<form method="post" action="/account/delegations/revoke" class="inline">
${hiddenInput('csrf', csrf)}
${hiddenInput('delegation', d.id)}
<button type="submit" class="secondary small" aria-label="Revoke ${client} acting at ${api}">Revoke</button>
</form>`;
    return `<li data-delegation="${escapeHtml(d.id)}"><strong>${client}</strong> → <strong>${api}</strong>${how}<br>
<span class="muted">${escapeHtml(d.scope.join(' '))} · since ${when(d.createdAt)} · last ${when(d.lastExchangedAt)}${d.chained ? ' · on behalf of another app acting for you' : ''}</span><br>${revoke}</li>`;
  });
  return `<ul class="rows" id="delegations">${items.join('\n')}</ul>`;
}

type SignedInPost = (path: string, act: (request: FastifyRequest, reply: FastifyReply, session: SignedIn, user: User) => Promise<FastifyReply>) => unknown;

export function accountDelegationRoutes(signedInPost: SignedInPost, deps: { store: Pick<Store, 'transaction'>; audit: AuditSink }): void {
  signedInPost('/delegations/revoke', async (request, reply, _session, user) => {
    const id = formField(request.body, 'delegation') ?? '';
    // Another user's delegation, or none: the same answer, nothing revoked.
    await deps.store.transaction(async (tx) => {
      const revoked = await tx.delegations.revoke(user.id, id);
      if (!revoked) return;
      await deps.audit.emit(
        {
          type: 'delegation.revoked',
          actor: { kind: 'user', userId: user.id },
          subject: user.id,
          clientId: revoked.clientId,
          details: { delegation_id: revoked.id, audience: revoked.audience, actor_client_id: revoked.clientId, face: 'account' },
          traceId: request.id,
        },
        { tx },
      );
    });
    return seeOther(reply, '/account?done=delegation_revoked');
  });
}
