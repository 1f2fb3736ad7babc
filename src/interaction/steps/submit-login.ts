// POST /interaction/:id/login — checks origin and CSRF token, runs the password method through the sign-in
// pipeline (sign-in/), and then either waits for the account's second factor or signs in (new session id:
// no fixation) before continuing to consent or straight back to the client.
import type { FastifyReply } from 'fastify';
import { interactionPath } from '../begin.js';
import { isLoggedIn } from '../complete.js';
import { checkCsrfToken, checkSameOrigin, formField } from '../csrf.js';
import type { FlowDeps } from '../flow-deps.js';
import { sendNext } from '../answer.js';
import { finishInteraction, loadInteraction, seeOther, type InteractionRequest } from '../interaction-context.js';
import { needsConsent } from '../requirements.js';
import { boundToInteraction } from '../mfa/second-factors.js';
import { secondFactorDemanded } from '../mfa/acr.js';
import { secondFactorMissing } from '../mfa/step-up.js';

export async function submitLogin(request: InteractionRequest, reply: FastifyReply, deps: FlowDeps): Promise<FastifyReply> {
  checkSameOrigin(request, deps.issuer);
  const { interaction, client, session } = await loadInteraction(request, deps);
  const back = interactionPath(request.params.id);
  if (!session) return seeOther(reply, back);
  checkCsrfToken(formField(request.body, 'csrf'), session, { href: back, label: 'Back to sign-in' });
  if (!interaction.loginRequired && isLoggedIn(session)) return seeOther(reply, back);

  const username = formField(request.body, 'username') ?? '';
  const password = formField(request.body, 'password') ?? '';
  const context = { request, face: 'interaction', method: 'password', clientId: client.id, answer: 'form' } as const;
  const outcome = await deps.signIn.attempt(context, () => deps.methods.password({ username, password, ip: request.ip }));
  if (!outcome.ok) {
    await deps.interactions.loginFailed(request.params.id, username);
    return seeOther(reply, `${back}?failed=1`);
  }
  const { userId } = outcome;
  // An account with a second factor is not signed in by its password alone (mfa/interaction-second-factor.ts).
  const hasSecondFactor = await deps.secondFactors.required(userId);
  if (!hasSecondFactor && secondFactorDemanded(interaction.request, client)) throw secondFactorMissing();
  if (hasSecondFactor) {
    await deps.secondFactors.awaitSecondFactor(session.idHash, userId, boundToInteraction(interaction.idHash));
    return seeOther(reply, back);
  }
  const fresh = await deps.signIn.completeSignIn(context, reply, session, outcome);
  await deps.interactions.loggedIn(request.params.id, fresh.idHash);
  if (isLoggedIn(fresh) && !(await needsConsent(interaction.request, client, userId, deps.consents))) {
    return sendNext(reply, await finishInteraction(request.params.id, fresh, deps), deps);
  }
  return seeOther(reply, back);
}
