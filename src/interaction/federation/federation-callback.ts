// GET /federation/:slug/callback — the browser is back from the provider named by the path. The
// interaction comes from the federation cookie AND the browser-session cookie (federation-cookie.ts); its
// pending request is taken once (a replayed or parallel callback finds nothing); the federation method
// checks the answer (state, iss, PKCE, id_token…) and the linking decision says what follows:
//   linked          → the account's own second factor if it has one, then signed in (amr `fed`);
//   prove-then-link → the confirmation page (link-confirmation.ts); nothing is linked yet;
//   provision       → a new account (provision.ts), signed in;
//   refused / error → a page naming what the user can do; the cause goes to the log and login.failed.
// Signed in, it answers with a page that moves on to the interaction (after-upstream.ts, `handOver`),
// never a redirect to the client: an upstream login page's CSP form-action would block that redirect chain.
// Never a 500: every failure of the upstream leg is a value with its page (federation-pages.ts).
import type { FastifyReply, FastifyRequest } from 'fastify';
import { interactionPath } from '../begin.js';
import type { FlowDeps } from '../flow-deps.js';
import { seeOther } from '../interaction-context.js';
import type { SignInContext } from '../sign-in/sign-in-pipeline.js';
import { continueAfterUpstream } from './after-upstream.js';
import { accountLinkCallback } from './account-link-callback.js';
import { accountSignInCallback } from './account-sign-in-callback.js';
import { ACCOUNT_LINK, ACCOUNT_SIGN_IN, takeInteraction } from './federation-cookie.js';
import { federationFailure, notFound } from './federation-pages.js';
import { linkConfirmationPath } from './link-confirmation.js';
import { offeredProviders } from './offered-providers.js';
import { signInFromUpstream } from './upstream-sign-in.js';

export type CallbackRequest = FastifyRequest<{ Params: { slug: string } }>;

export const federationCallbackRouteOptions = {
  config: { face: 'page' as const, limit: 'pages' as const },
  schema: { params: { type: 'object', properties: { slug: { type: 'string', pattern: '^[a-z0-9][a-z0-9-]{0,62}$' } }, required: ['slug'] } },
};

export async function federationCallback(request: CallbackRequest, reply: FastifyReply, deps: FlowDeps): Promise<FastifyReply> {
  const id = takeInteraction(request, reply, deps.issuer);
  if (!id) throw notFound('federation_no_interaction_cookie');
  if (id === ACCOUNT_LINK) return accountLinkCallback(request, reply, deps);
  if (id === ACCOUNT_SIGN_IN) return accountSignInCallback(request, reply, deps);
  const found = await deps.interactions.findWithSession(id, deps.sessions.cookie(request));
  const client = found && (await deps.clients.find(found.interaction.clientId));
  request.clientId = found?.interaction.clientId;
  const session = found && !found.interaction.expired ? found.session : undefined;
  if (!found || !client || !session) throw notFound('federation_interaction_not_found');
  const back = interactionPath(id);

  const provider = await deps.federation.providers.find(request.params.slug);
  const name = provider?.name ?? request.params.slug;
  // Single use, whatever follows: a second arrival of this callback (or a parallel one) finds nothing.
  const leg = await deps.federation.legs.take(id);
  if (leg?.stage !== 'upstream') throw federationFailure('no_pending', name, back, 'no upstream sign-in is pending for this interaction');
  if (!provider || provider.slug !== request.params.slug)
    throw federationFailure('provider_mismatch', name, back, `no identity provider ${request.params.slug}`);
  if (!(await offeredProviders(client, deps.federation)).some((p) => p.id === provider.id))
    throw federationFailure('not_offered', name, back, `${provider.slug} is not offered to client ${client.id}`);

  // Refusals are thrown as pages, whose log line the error edge writes ('json': the pipeline writes none).
  const context: SignInContext = { request, face: 'interaction', method: 'federation', clientId: client.id, answer: 'json' };
  const parameters = new URL(request.url, 'http://callback.invalid').searchParams;
  const outcome = await deps.methods.federation({ provider, pending: leg.pending, parameters });
  const loaded = { interaction: found.interaction, client, session, id };
  if (outcome.ok === false) {
    await deps.signIn.refuseSignIn(context, { ok: false, reason: outcome.reason, detail: outcome.detail });
    throw federationFailure(outcome.reason, name, back, outcome.detail);
  }
  if (outcome.ok === 'unlinked' && outcome.decision.action === 'prove-then-link') {
    const { identity, decision } = outcome;
    // Tokens wait on the interaction sealed, and are written only if the link is made and the sign-in completes.
    const tokens = outcome.tokens && deps.federation.tokens.seal({ providerId: provider.id, subject: identity.subject }, outcome.tokens);
    await deps.federation.legs.put(id, {
      stage: 'link',
      identity: {
        providerId: provider.id,
        subject: identity.subject,
        email: identity.email,
        userId: decision.userId,
        createdAt: deps.clock.now(),
        ...(tokens ? { tokens } : {}),
      },
    });
    return seeOther(reply, linkConfirmationPath(id));
  }
  // Linked (the account's own second factor follows unless --trust-mfa says it was passed) or provisioned; the
  // upstream tokens (--store-tokens) are written only when the sign-in completes (upstream-sign-in.ts).
  const { proved, secondFactorDone } = await signInFromUpstream(outcome, provider, { traceId: request.id, clientId: client.id, back }, deps);
  return continueAfterUpstream(context, reply, loaded, proved, deps, { secondFactorDone });
}
