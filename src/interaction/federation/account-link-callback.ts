// The callback of a link started on /account (account/account-identities.ts): the pending request is on the
// signed-in browser session (storage/account-link-requests-repository.ts), taken once. The upstream round
// trip is checked as for a sign-in (state, iss, PKCE, id_token…), but nothing signs in: the verified
// (provider, sub) is linked to the session's user — who proved the account freshly before leaving — unless
// it is linked already (to this account: nothing to do; to another: refused). `account.identity_linked`.
import type { FastifyReply } from 'fastify';
import { completeUpstreamSignIn } from '../../federation/callback.js';
import { isLoggedIn } from '../complete.js';
import type { FlowDeps } from '../flow-deps.js';
import { seeOther } from '../interaction-context.js';
import type { CallbackRequest } from './federation-callback.js';
import { keepTokens } from './keep-tokens.js';
import { federationFailure, notFound } from './federation-pages.js';

const ACCOUNT = '/account';

export async function accountLinkCallback(request: CallbackRequest, reply: FastifyReply, deps: FlowDeps): Promise<FastifyReply> {
  const session = await deps.sessions.current(request);
  if (!isLoggedIn(session)) throw notFound('federation_account_link_no_session');
  const provider = await deps.federation.providers.find(request.params.slug);
  const name = provider?.name ?? request.params.slug;
  // Single use, whatever follows.
  const pending = await deps.federation.accountLinks.take(session.idHash);
  if (!pending) throw federationFailure('no_pending', name, ACCOUNT, 'no link is pending for this session');
  if (!provider || provider.slug !== request.params.slug || provider.id !== pending.providerId)
    throw federationFailure('provider_mismatch', name, ACCOUNT, `callback of ${request.params.slug} for a link to another provider`);
  const parameters = new URL(request.url, 'http://callback.invalid').searchParams;
  const result = await completeUpstreamSignIn(provider, pending, parameters, deps.federation.upstream);
  if (!result.ok) {
    const { code, detail, upstreamError } = result.error;
    throw federationFailure(code, name, ACCOUNT, upstreamError ? `${detail} (${upstreamError})` : detail);
  }
  const { identity, tokens } = result;
  const now = new Date(deps.clock.now());
  const linked = await deps.federation.identities.link(
    { providerId: provider.id, subject: identity.subject, userId: session.userId, email: identity.email },
    now,
  );
  if (linked !== 'linked') {
    const existing = await deps.federation.identities.find(provider.id, identity.subject);
    if (existing?.userId === session.userId) {
      await keepTokens(deps, provider.id, identity.subject, tokens);
      return seeOther(reply, `${ACCOUNT}?done=identity_linked`);
    }
    throw federationFailure('link_conflict', name, ACCOUNT, `link of ${provider.slug} to user ${session.userId} from /account: ${linked}`);
  }
  await keepTokens(deps, provider.id, identity.subject, tokens);
  await deps.audit.emit({
    type: 'account.identity_linked',
    actor: { kind: 'user', userId: session.userId },
    subject: session.userId,
    traceId: request.id,
    details: { face: 'account', provider: provider.slug, how: 'linked_from_account' },
  });
  await deps.providerLinkedNotice?.(session.userId, name, request.headers['accept-language']);
  return seeOther(reply, `${ACCOUNT}?done=identity_linked`);
}
