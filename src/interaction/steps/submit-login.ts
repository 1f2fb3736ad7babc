// POST /interaction/:id/login — checks origin and CSRF token, verifies the password, and on success replaces
// the browser session (new id: no fixation) before continuing to consent or straight back to the client.
import type { FastifyReply } from 'fastify';
import { interactionPath } from '../begin.js';
import { isLoggedIn } from '../complete.js';
import { checkCsrfToken, checkSameOrigin, formField } from '../csrf.js';
import type { FlowDeps } from '../flow-deps.js';
import { sendNext } from '../answer.js';
import { finishInteraction, loadInteraction, seeOther, type InteractionRequest } from '../interaction-context.js';
import { authenticate } from '../login/authenticate.js';
import { logRefusal } from '../../http/refusal-log.js';
import { needsConsent } from '../requirements.js';
import { AMR_PASSWORD, boundToInteraction } from '../mfa/second-factors.js';
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
  const system = { actor: { kind: 'system' as const }, clientId: client.id, traceId: request.id };
  const outcome = await authenticate({ username, password, ip: request.ip }, { users: deps.users, guard: deps.loginGuard }).catch(async (error: unknown) => {
    // A used-up failure budget refuses before any password check (429): the lockout is a security event.
    if ((error as { status?: number }).status === 429) await deps.audit.emit({ ...system, type: 'login.locked_out' });
    throw error;
  });
  if (!outcome.ok) {
    // The username itself is not logged: people type their password into it often enough.
    logRefusal(request, { reason: outcome.reason, client_id: client.id, user_id: outcome.userId }, 303);
    await deps.audit.emit({ ...system, type: 'login.failed', ...(outcome.userId ? { subject: outcome.userId } : {}), details: { reason: outcome.reason } });
    await deps.interactions.loginFailed(request.params.id, username);
    return seeOther(reply, `${back}?failed=1`);
  }
  const { user } = outcome;
  // An account with a second factor is not signed in by its password alone (mfa/interaction-second-factor.ts).
  const hasSecondFactor = await deps.secondFactors.required(user.id);
  if (!hasSecondFactor && secondFactorDemanded(interaction.request, client)) throw secondFactorMissing();
  if (hasSecondFactor) {
    await deps.secondFactors.awaitSecondFactor(session.idHash, user.id, boundToInteraction(interaction.idHash));
    return seeOther(reply, back);
  }
  await deps.audit.emit({ type: 'login.succeeded', actor: { kind: 'user', userId: user.id, clientId: client.id }, subject: user.id, clientId: client.id, traceId: request.id });

  const fresh = await deps.sessions.login(reply, session, user.id);
  await deps.secondFactors.recordSignIn(fresh.idHash, { amr: AMR_PASSWORD, userAgent: request.headers['user-agent'], ip: request.ip });
  await deps.interactions.loggedIn(request.params.id, fresh.idHash);
  if (isLoggedIn(fresh) && !(await needsConsent(interaction.request, client, user.id, deps.consents))) {
    return sendNext(reply, await finishInteraction(request.params.id, fresh, deps), deps);
  }
  return seeOther(reply, back);
}
