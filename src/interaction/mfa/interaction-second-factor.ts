// The second factor inside an authorization flow. After a correct password for an account with a second
// factor, nothing is signed in yet: the browser session only waits for that user's code, for this
// interaction only (docs/second-factors.md). POST /interaction/:id/second-factor checks origin and CSRF
// like the login form, charges the attempt to the same failure budget as passwords, and on success signs
// in under a new session id and continues to consent or back to the client. Until then the interaction
// still needs its login, so posting straight to the consent step leads back here.
import type { FastifyReply } from 'fastify';
import { logRefusal } from '../../http/refusal-log.js';
import { sendNext } from '../answer.js';
import { interactionPath } from '../begin.js';
import { isLoggedIn } from '../complete.js';
import { checkCsrfToken, checkSameOrigin, formField } from '../csrf.js';
import type { FlowDeps } from '../flow-deps.js';
import { finishInteraction, loadInteraction, seeOther, type InteractionRequest } from '../interaction-context.js';
import { needsConsent } from '../requirements.js';
import { boundToInteraction } from './second-factors.js';

export async function submitSecondFactor(request: InteractionRequest, reply: FastifyReply, deps: FlowDeps): Promise<FastifyReply> {
  checkSameOrigin(request, deps.issuer);
  const { interaction, client, session } = await loadInteraction(request, deps);
  const back = interactionPath(request.params.id);
  if (!session) return seeOther(reply, back);
  checkCsrfToken(formField(request.body, 'csrf'), session, { href: back, label: 'Back to sign-in' });
  const flow = boundToInteraction(interaction.idHash);
  const userId = await deps.secondFactors.pendingUser(session.idHash, flow);
  if (userId === undefined) return seeOther(reply, back);

  // Charged before the code is looked at and refunded on success: the password's budget (rate-limited-logins.ts).
  const reservation = await deps.loginGuard.charge({ userId, ip: request.ip });
  const outcome = await deps.secondFactors.verify(userId, { otp: formField(request.body, 'otp'), recoveryCode: formField(request.body, 'recovery_code') });
  if (!outcome.ok) {
    logRefusal(request, { reason: outcome.reason, client_id: client.id, user_id: userId }, 303);
    return seeOther(reply, `${back}?failed=1`);
  }
  await reservation.refund();
  // Single use of the wait itself: of two parallel successes (an OTP and a recovery code) only one signs in.
  if ((await deps.secondFactors.consumePending(session.idHash, flow)) !== userId) return seeOther(reply, back);

  const fresh = await deps.sessions.login(reply, session, userId);
  await deps.secondFactors.recordSignIn(fresh.idHash, { amr: outcome.amr, userAgent: request.headers['user-agent'], ip: request.ip });
  await deps.interactions.loggedIn(request.params.id, fresh.idHash);
  if (isLoggedIn(fresh) && !(await needsConsent(interaction.request, client, userId, deps.consents))) {
    return sendNext(reply, await finishInteraction(request.params.id, fresh, deps), deps);
  }
  return seeOther(reply, back);
}
