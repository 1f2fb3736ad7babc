// The callback of /account's own sign-in through a provider (account/account-federation.ts): the pending
// request is on this browser's session (storage/account-link-requests-repository.ts, the column a link from
// /account uses; the federation cookie says which of the two is pending), taken once. Then the same road as
// a sign-in at the authorization flow's callback (federation-callback.ts), ending on /account instead of at
// a client: the federation method (state, iss, PKCE, id_token…), the linking decision, and the one pipeline
// (completeSignIn, amr `fed`) — with the account's own second factor asked on /account first, unless the
// provider is trusted for it and its id_token says so (--trust-mfa). An identity not linked yet is either a
// new account (`--provision on`) or a page saying to sign in another way and link the provider from /account:
// the confirmation page that proves and links is the authorization flow's (it is bound to an interaction).
// The redirect to /account stays on this origin, which the upstream's CSP form-action allows (our callback).
import type { FastifyReply } from 'fastify';
import { PageError } from '../../http/errors.js';
import type { FlowDeps } from '../flow-deps.js';
import { seeOther } from '../interaction-context.js';
import { ACCOUNT_FLOW } from '../mfa/second-factors.js';
import type { SignInContext } from '../sign-in/sign-in-pipeline.js';
import type { CallbackRequest } from './federation-callback.js';
import { federationFailure, notFound } from './federation-pages.js';
import { signInFromUpstream } from './upstream-sign-in.js';

const ACCOUNT = '/account';

export async function accountSignInCallback(request: CallbackRequest, reply: FastifyReply, deps: FlowDeps): Promise<FastifyReply> {
  const session = await deps.sessions.current(request);
  if (!session) throw notFound('federation_account_sign_in_no_session');
  const provider = await deps.federation.providers.find(request.params.slug);
  const name = provider?.name ?? request.params.slug;
  // Single use, whatever follows.
  const pending = await deps.federation.accountLinks.take(session.idHash);
  if (!pending) throw federationFailure('no_pending', name, ACCOUNT, 'no /account sign-in is pending for this session');
  if (!provider || provider.slug !== request.params.slug || provider.id !== pending.providerId)
    throw federationFailure('provider_mismatch', name, ACCOUNT, `callback of ${request.params.slug} for an /account sign-in with another provider`);

  const context: SignInContext = { request, face: 'account', method: 'federation', answer: 'json' };
  const parameters = new URL(request.url, 'http://callback.invalid').searchParams;
  const outcome = await deps.methods.federation({ provider, pending, parameters });
  if (outcome.ok === false) {
    await deps.signIn.refuseSignIn(context, { ok: false, reason: outcome.reason, detail: outcome.detail });
    throw federationFailure(outcome.reason, name, ACCOUNT, outcome.detail);
  }

  if (outcome.ok === 'unlinked' && outcome.decision.action === 'prove-then-link') {
    // An account here has the address, but nothing links it to this upstream account yet: linking needs a
    // proof of the account, which this page does not take. Nothing is kept (the tokens go with the request).
    await deps.signIn.refuseSignIn(context, { ok: false, reason: 'not_linked', detail: `${provider.slug} subject is not linked; an account has its address` });
    throw new PageError(
      'Not linked yet',
      `This ${name} account is not linked to an account here. Sign in with your password or a passkey, then link ${name} on your account page.`,
      409,
      {},
      { back: { href: ACCOUNT, label: 'Back to sign-in' }, log: { reason: 'federation_not_linked' } },
    );
  }
  // Linked or provisioned, as at the authorization flow's callback (upstream-sign-in.ts); the upstream tokens
  // (--store-tokens) travel sealed with what was proved and are written when the sign-in completes.
  const { proved, secondFactorDone } = await signInFromUpstream(outcome, provider, { traceId: request.id, back: ACCOUNT }, deps);

  if (!secondFactorDone && (await deps.secondFactors.required(proved.userId))) {
    // The account's own second factor, on /account; the first factor (`fed`) is kept with the wait.
    await deps.secondFactors.awaitSecondFactor(session.idHash, proved.userId, ACCOUNT_FLOW, proved.amr, proved.upstreamTokens);
    return seeOther(reply, ACCOUNT);
  }
  await deps.signIn.completeSignIn(context, reply, session, proved);
  return seeOther(reply, ACCOUNT);
}
