// The second factor inside an authorization flow. After a correct password for an account with a second
// factor, nothing is signed in yet: the browser session only waits for that user's code, for this
// interaction only (docs/second-factors.md). POST /interaction/:id/second-factor checks origin and CSRF
// like the login form, runs the TOTP or recovery-code method through the sign-in pipeline (their budgets:
// sign-in/one-time-code-methods.ts), and on success signs in under a new session id and continues to
// consent or back to the client. Until then the interaction still needs its login, so posting straight to
// the consent step leads back here.
import type { FastifyReply } from 'fastify';
import { sendNext } from '../answer.js';
import { interactionPath } from '../begin.js';
import { isLoggedIn } from '../complete.js';
import { checkCsrfToken, checkSameOrigin, formField } from '../csrf.js';
import type { FlowDeps } from '../flow-deps.js';
import { finishInteraction, loadInteraction, seeOther, type InteractionRequest } from '../interaction-context.js';
import { needsConsent } from '../requirements.js';
import { codeOf } from '../sign-in/one-time-code-methods.js';
import { afterFirstFactor, boundToInteraction } from './second-factors.js';

export async function submitSecondFactor(request: InteractionRequest, reply: FastifyReply, deps: FlowDeps): Promise<FastifyReply> {
  checkSameOrigin(request, deps.issuer);
  const { interaction, client, session } = await loadInteraction(request, deps);
  const back = interactionPath(request.params.id);
  if (!session) return seeOther(reply, back);
  checkCsrfToken(formField(request.body, 'csrf'), session, { href: back, label: 'Back to sign-in' });
  const flow = boundToInteraction(interaction.idHash);
  const userId = await deps.secondFactors.pendingUser(session.idHash, flow);
  if (userId === undefined) return seeOther(reply, back);

  const { method, code } = codeOf({ otp: formField(request.body, 'otp'), recoveryCode: formField(request.body, 'recovery_code') });
  const context = { request, face: 'interaction', method, clientId: client.id, userId, answer: 'form' } as const;
  const outcome = await deps.signIn.attempt(context, () => deps.methods[method]({ userId, code, ip: request.ip }));
  if (!outcome.ok) return seeOther(reply, `${back}?failed=1`);
  // Single use of the wait itself: of two parallel successes (an OTP and a recovery code) only one signs in.
  const pending = await deps.secondFactors.consumePendingSignIn(session.idHash, flow);
  if (pending?.userId !== userId) return seeOther(reply, back);

  // After an upstream provider (federation) the amr names it, not a password.
  // An upstream sign-in's tokens (--store-tokens) waited with it and are written now that it completes.
  const fresh = await deps.signIn.completeSignIn(context, reply, session, {
    userId,
    amr: afterFirstFactor(outcome.amr, pending.firstFactor),
    upstreamTokens: pending.upstreamTokens,
  });
  await deps.interactions.loggedIn(request.params.id, fresh.idHash);
  if (isLoggedIn(fresh) && !(await needsConsent(interaction.request, client, userId, deps.consents))) {
    return sendNext(reply, await finishInteraction(request.params.id, fresh, deps, { request: interaction.request, client }), deps);
  }
  return seeOther(reply, back);
}
