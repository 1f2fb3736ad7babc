// No dead end when an application asks for more than the account has (issue 29 item 5): a flow that
// demands a second factor (acr_values or an essential acr of the MFA class, or a client created with
// --require-mfa) for an account without one offers to set one up right there, under the rules of /account
// (docs/security/account-factors.md):
//   - binding needs a fresh proof of the account (REAUTH_MAX_AGE): the password just typed in this flow
//     counts; an older one is asked again (POST …/set-up/reauth, the password method of the pipeline);
//   - binding never raises the session's amr: after the authenticator app or the passkey is bound, the
//     session waits for that factor (pending second factor, this interaction only), and only USING it
//     signs in with `mfa` (interaction-second-factor.ts, interaction-passkey.ts) and lets the flow go on.
// Declining (POST …/decline) answers the client with the OpenID Connect error
// unmet_authentication_requirements, with state and iss. Every POST checks origin and CSRF token, and acts
// only while this session, signed in, really is short of a factor for this flow.
import type { FastifyInstance, FastifyReply } from 'fastify';
import { logRefusal } from '../../http/refusal-log.js';
import { refuseFlow } from '../device/device-outcome.js';
import { interactionPath } from '../begin.js';
import { isLoggedIn } from '../complete.js';
import { checkCsrfToken, checkSameOrigin, formField } from '../csrf.js';
import type { FlowDeps } from '../flow-deps.js';
import { interactionRouteOptions, loadInteraction, seeOther, type InteractionRequest } from '../interaction-context.js';
import { passkeyFlowGone, passkeyRefused, passkeyRouteOptions, sendJson, type PasskeyBody } from '../passkeys/passkey-json.js';
import { hasFreshProof } from './fresh-proof.js';
import { boundToInteraction } from './second-factors.js';
import { renderRecoveryCodesPage } from './recovery-codes-page.js';
import { secondFactorShortfall, unmetRequirements } from './step-up.js';

type Params = { Params: { id: string } };

/** Passkey registration challenges of a set-up are bound to the interaction, apart from its sign-in ones. */
const setUpBinding = (interactionIdHash: string) => `set-up:${boundToInteraction(interactionIdHash)}`;

/**
 * The interaction, its client and its signed-in session when this flow is waiting for a factor to be set
 * up; undefined otherwise (the caller goes back to the interaction page, which shows what is needed now).
 */
async function settingUp(request: InteractionRequest, csrf: string | undefined, deps: FlowDeps) {
  checkSameOrigin(request, deps.issuer);
  const { interaction, client, session } = await loadInteraction(request, deps);
  if (!session) return undefined;
  checkCsrfToken(csrf, session, { href: interactionPath(request.params.id), label: 'Back to sign-in' });
  if (interaction.loginRequired || !isLoggedIn(session)) return undefined;
  if ((await secondFactorShortfall(session, interaction.request, client, deps.secondFactors)) !== 'set_up') return undefined;
  return { interaction, client, session, freshProof: await hasFreshProof(session, deps) };
}

/** After binding: the flow now waits for the new factor to be used once, for this interaction only. */
async function bound(
  found: NonNullable<Awaited<ReturnType<typeof settingUp>>>,
  factor: 'totp' | 'passkey',
  request: InteractionRequest,
  deps: FlowDeps,
): Promise<void> {
  const { session, client, interaction } = found;
  await deps.audit.emit({
    type: 'account.second_factor_added',
    actor: { kind: 'user', userId: session.userId, clientId: client.id },
    subject: session.userId,
    clientId: client.id,
    traceId: request.id,
    details: { face: 'interaction', factor },
  });
  // As on /account: the session that bound the factor keeps the account page open, its amr stays as it was.
  await deps.secondFactors.markBoundFactor(session.idHash);
  await deps.secondFactors.awaitSecondFactor(session.idHash, session.userId, boundToInteraction(interaction.idHash));
}

export function setUpInFlowRoutes(app: FastifyInstance, deps: FlowDeps): void {
  const options = interactionRouteOptions;
  const page = (request: InteractionRequest, query = '') => `${interactionPath(request.params.id)}${query}`;

  // The proof went stale on the page: the password again (the account has no other factor by definition).
  app.post<Params>('/interaction/:id/set-up/reauth', options, async (request, reply) => {
    const found = await settingUp(request, formField(request.body, 'csrf'), deps);
    if (!found) return seeOther(reply, page(request));
    const { session, client } = found;
    const context = { request, face: 'interaction', method: 'password', clientId: client.id, userId: session.userId, answer: 'form' } as const;
    const password = formField(request.body, 'password') ?? '';
    const outcome = await deps.signIn.attempt(context, () => deps.methods.password({ username: session.username ?? '', password, ip: request.ip }));
    if (!outcome.ok || outcome.userId !== session.userId) return seeOther(reply, page(request, '?error=reauth_failed'));
    await deps.secondFactors.recordProof(session.idHash);
    return seeOther(reply, page(request));
  });

  app.post<Params>('/interaction/:id/set-up/totp', options, async (request, reply) => {
    const found = await settingUp(request, formField(request.body, 'csrf'), deps);
    if (!found) return seeOther(reply, page(request));
    if (!found.freshProof) return refusedStale(request, reply, found.session.userId, page(request));
    await deps.secondFactors.beginTotp({ id: found.session.userId, username: found.session.username ?? '' });
    return seeOther(reply, page(request));
  });

  app.post<Params>('/interaction/:id/set-up/totp/confirm', options, async (request, reply) => {
    const found = await settingUp(request, formField(request.body, 'csrf'), deps);
    if (!found) return seeOther(reply, page(request));
    if (!found.freshProof) return refusedStale(request, reply, found.session.userId, page(request));
    const codes = await deps.secondFactors.confirmTotp(found.session.userId, formField(request.body, 'otp') ?? '');
    if (!codes) {
      logRefusal(request, { reason: 'wrong_otp', client_id: found.client.id, user_id: found.session.userId }, 303);
      return seeOther(reply, page(request, '?error=totp_code'));
    }
    await bound(found, 'totp', request, deps);
    // The codes are shown once; "Continue" leads to the second-factor page, where the new app's next code is used.
    return reply
      .code(200)
      .headers({ 'cache-control': 'no-store' })
      .type('text/html; charset=utf-8')
      .send(renderRecoveryCodesPage({ brand: deps.brand, codes, done: { href: page(request), label: 'Continue' } }));
  });

  const json = passkeyRouteOptions(interactionRouteOptions.schema.params);
  type JsonRoute = { Params: { id: string }; Body: PasskeyBody };
  async function passkeySetUp(request: InteractionRequest & { body: PasskeyBody }) {
    const found = await settingUp(request, request.body.csrf, deps);
    if (!found) throw passkeyFlowGone('nothing_to_set_up');
    if (!found.freshProof) throw passkeyFlowGone('reauthentication_required');
    return found;
  }

  app.post<JsonRoute>('/interaction/:id/set-up/passkey/options', json, async (request, reply) => {
    const { session, interaction } = await passkeySetUp(request);
    return sendJson(reply, await deps.passkeys.registrationOptions({ id: session.userId, username: session.username ?? '' }, setUpBinding(interaction.idHash)));
  });

  app.post<JsonRoute>('/interaction/:id/set-up/passkey/verify', json, async (request, reply): Promise<FastifyReply> => {
    const found = await passkeySetUp(request);
    const { session, interaction, client } = found;
    const outcome = await deps.passkeys.register({ id: session.userId }, setUpBinding(interaction.idHash), request.body.response, request.body.name ?? '');
    if (!outcome.ok) throw passkeyRefused(outcome.reason, { client_id: client.id, user_id: session.userId, detail: outcome.detail });
    await bound(found, 'passkey', request, deps);
    return sendJson(reply, { redirect: page(request) });
  });

  // Declined: the client hears back (OpenID Connect Core Error Code unmet_authentication_requirements).
  app.post<Params>('/interaction/:id/decline', options, async (request, reply) => {
    const found = await settingUp(request, formField(request.body, 'csrf'), deps);
    if (!found) return seeOther(reply, page(request));
    const consumed = await deps.interactions.consume(request.params.id, found.session.idHash);
    if (!consumed) return seeOther(reply, page(request));
    logRefusal(request, { reason: 'second_factor_set_up_declined', client_id: found.client.id, user_id: found.session.userId }, 303);
    return refuseFlow(reply, consumed.request, unmetRequirements(), deps);
  });
}

function refusedStale(request: InteractionRequest, reply: FastifyReply, userId: string, back: string): FastifyReply {
  logRefusal(request, { reason: 'reauthentication_required', user_id: userId }, 303);
  return seeOther(reply, back);
}
