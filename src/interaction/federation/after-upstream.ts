// After the upstream proved who the user is, the same road as after a password (steps/submit-login.ts):
// an account with its own second factor waits for it (the first factor, recorded with the wait, makes the
// final amr name `fed`, not `pwd`); otherwise the browser is signed in through the one pipeline
// (completeSignIn) and answers with a page of ours that goes on to the interaction by itself
// (pages/hand-over-page.ts), never a redirect to the client. At the provider's callback: the redirect chain from the
// upstream's login form is checked against the upstream page's CSP form-action. After our own link confirmation
// form: against ours — and a relying party whose redirect_uri redirects on to another origin (a broker) would be
// blocked there. The page ends the form's chain; its refresh is a navigation of its own, where the interaction page
// goes on to consent, to setting up a second factor a flow demands, or the client.
import type { FastifyReply } from 'fastify';
import { interactionPath } from '../begin.js';
import type { FlowDeps } from '../flow-deps.js';
import { seeOther, sendPage } from '../interaction-context.js';
import { renderHandOverPage } from '../pages/hand-over-page.js';
import type { LoadedInteraction } from '../interaction-context.js';
import { boundToInteraction } from '../mfa/second-factors.js';
import type { Proved, SignInContext } from '../sign-in/sign-in-pipeline.js';

export async function continueAfterUpstream(
  context: SignInContext,
  reply: FastifyReply,
  loaded: LoadedInteraction & { id: string; session: NonNullable<LoadedInteraction['session']> },
  /** With an upstream sign-in's sealed tokens (--store-tokens): they wait with the second factor, if one is asked. */
  proved: Proved,
  deps: FlowDeps,
  /** The proof already included the account's own second factor (a code on the link confirmation page). */
  options: { secondFactorDone?: boolean | undefined } = {},
): Promise<FastifyReply> {
  const { interaction, session, id } = loaded;
  const back = interactionPath(id);
  if (!options.secondFactorDone && (await deps.secondFactors.required(proved.userId))) {
    await deps.secondFactors.awaitSecondFactor(session.idHash, proved.userId, boundToInteraction(interaction.idHash), proved.amr, proved.upstreamTokens);
    return seeOther(reply, back);
  }
  const fresh = await deps.signIn.completeSignIn(context, reply, session, proved);
  await deps.interactions.loggedIn(id, fresh.idHash);
  // The interaction page then answers the client (or asks for consent) in a navigation of its own.
  return sendPage(reply, renderHandOverPage(deps.brand, { href: back, title: 'Signing you in' }));
}
