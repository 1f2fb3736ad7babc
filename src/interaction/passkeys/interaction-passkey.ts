// Passkeys inside an authorization flow: POST /interaction/:id/passkey/options and .../passkey/verify.
// Two modes, decided by the browser session's state, never by the request: after a correct password (the
// session waits for this interaction's second factor) the passkey must be that user's and is the second
// factor; otherwise it is a passwordless sign-in with any discoverable passkey, user verification required.
// The challenge is bound to this interaction and used once. Each verification is charged to the login
// failure budget of the passkey's owner (or of the address alone) before it is checked, and refunded on
// success, like a password or a code (docs/rate-limits.md).
import type { FastifyInstance, FastifyReply } from 'fastify';
import { interactionPath } from '../begin.js';
import { isLoggedIn } from '../complete.js';
import { checkCsrfToken, checkSameOrigin } from '../csrf.js';
import type { FlowDeps } from '../flow-deps.js';
import { interactionRouteOptions, loadInteraction, type InteractionRequest } from '../interaction-context.js';
import { boundToInteraction } from '../mfa/second-factors.js';
import { passkeyFlowGone, passkeyRefused, passkeyRouteOptions, sendJson, type PasskeyBody } from './passkey-json.js';

type Request = InteractionRequest & { body: PasskeyBody };

/** The flow this request is in: whose second factor is awaited (undefined: passwordless). */
async function ceremonyOf(request: Request, deps: FlowDeps) {
  checkSameOrigin(request, deps.issuer);
  const { interaction, client, session } = await loadInteraction(request, deps);
  if (!session) throw passkeyFlowGone('interaction_session_expired');
  checkCsrfToken(request.body.csrf, session);
  const flow = boundToInteraction(interaction.idHash);
  const pendingUser = await deps.secondFactors.pendingUser(session.idHash, flow);
  if (pendingUser === undefined && !interaction.loginRequired && isLoggedIn(session)) throw passkeyFlowGone('already_signed_in');
  return { interaction, client, session, flow, pendingUser };
}

export function interactionPasskeyRoutes(app: FastifyInstance, deps: FlowDeps): void {
  const options = passkeyRouteOptions(interactionRouteOptions.schema.params);

  app.post<{ Params: { id: string }; Body: PasskeyBody }>('/interaction/:id/passkey/options', options, async (request, reply) => {
    const { client, flow, pendingUser } = await ceremonyOf(request, deps);
    // A second factor offers only that user's passkeys; a user without one has nothing to offer.
    if (pendingUser !== undefined && (await deps.passkeys.count(pendingUser)) === 0) throw passkeyRefused('no_passkeys', { client_id: client.id, user_id: pendingUser });
    return sendJson(reply, await deps.passkeys.authenticationOptions(flow, pendingUser));
  });

  app.post<{ Params: { id: string }; Body: PasskeyBody }>('/interaction/:id/passkey/verify', options, async (request, reply): Promise<FastifyReply> => {
    const { client, session, flow, pendingUser } = await ceremonyOf(request, deps);
    const response = request.body.response;
    const claimed = pendingUser ?? (await deps.passkeys.claimedUser(response));
    const reservation = await deps.loginGuard.charge({ userId: claimed, ip: request.ip });
    const outcome = await deps.passkeys.authenticate(flow, response, pendingUser);
    const system = { actor: { kind: 'system' as const }, clientId: client.id, traceId: request.id };
    if (!outcome.ok) {
      await deps.audit.emit({ ...system, type: 'login.failed', ...(claimed ? { subject: claimed } : {}), details: { reason: outcome.reason } });
      throw passkeyRefused(outcome.reason, { client_id: client.id, user_id: claimed, detail: outcome.detail });
    }
    await reservation.refund();
    // Single use of the wait itself, as for a code (mfa/interaction-second-factor.ts).
    if (pendingUser !== undefined && (await deps.secondFactors.consumePending(session.idHash, flow)) !== pendingUser) throw passkeyFlowGone('second_factor_wait_used');
    await deps.audit.emit({ type: 'login.succeeded', actor: { kind: 'user', userId: outcome.userId, clientId: client.id }, subject: outcome.userId, clientId: client.id, traceId: request.id });
    const fresh = await deps.sessions.login(reply, session, outcome.userId);
    await deps.secondFactors.recordSignIn(fresh.idHash, { amr: outcome.amr, userAgent: request.headers['user-agent'], ip: request.ip });
    await deps.interactions.loggedIn(request.params.id, fresh.idHash);
    // The interaction page goes on to consent, or back to the client (steps/show-interaction.ts).
    return sendJson(reply, { redirect: interactionPath(request.params.id) });
  });
}
