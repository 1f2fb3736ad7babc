// POST /interaction/:id/consent — the only way to approve (never a GET): origin and CSRF token checked,
// then `allow` remembers the consent and issues the code, `deny` sends access_denied (RFC 6749 4.1.2.1).
// Either way the interaction is consumed in one statement, so a double submit cannot answer twice.
import type { FastifyReply } from 'fastify';
import { OAuthError, PageError } from '../../http/errors.js';
import { sendNext } from '../answer.js';
import { refuseFlow } from '../device/device-outcome.js';
import { interactionPath } from '../begin.js';
import { isLoggedIn } from '../complete.js';
import { checkCsrfToken, checkSameOrigin, formField } from '../csrf.js';
import type { FlowDeps } from '../flow-deps.js';
import { needsStepUp } from '../mfa/step-up.js';
import { finishInteraction, loadInteraction, seeOther, type InteractionRequest } from '../interaction-context.js';

export async function submitConsent(request: InteractionRequest, reply: FastifyReply, deps: FlowDeps): Promise<FastifyReply> {
  checkSameOrigin(request, deps.issuer);
  const { interaction, client, session } = await loadInteraction(request, deps);
  const back = interactionPath(request.params.id);
  if (!session) return seeOther(reply, back);
  checkCsrfToken(formField(request.body, 'csrf'), session, { href: back, label: 'Back to the consent page' });
  if (interaction.loginRequired || !isLoggedIn(session)) return seeOther(reply, back);
  // Nothing is approved (or remembered) while the flow still needs a second factor used or set up.
  if (await needsStepUp(session, interaction.request, client, deps.secondFactors)) return seeOther(reply, back);

  const decision = formField(request.body, 'decision');
  if (decision !== 'allow' && decision !== 'deny')
    throw new PageError('Invalid request', 'Choose Allow or Deny.', 400, {}, { back: { href: back, label: 'Back to the consent page' } });
  if (decision === 'deny') {
    const consumed = await deps.interactions.consume(request.params.id, session.idHash);
    if (!consumed) return seeOther(reply, back);
    return refuseFlow(reply, consumed.request, new OAuthError('access_denied', 'The user denied the request.'), deps);
  }
  // A device flow's approval is not remembered: each device authorization is asked anew (RFC 8628 5.4).
  if (!interaction.request.device) await deps.consents.grant(session.userId, interaction.clientId, interaction.request.scope);
  await deps.audit.emit({
    type: 'consent.given',
    actor: { kind: 'user', userId: session.userId, clientId: interaction.clientId },
    subject: session.userId,
    clientId: interaction.clientId,
    details: { scope: interaction.request.scope.join(' '), ...(interaction.request.device ? { flow: 'device' } : {}) },
    traceId: request.id,
  });
  return sendNext(reply, await finishInteraction(request.params.id, session, deps, { request: interaction.request, client }), deps);
}
