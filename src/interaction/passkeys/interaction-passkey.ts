// Passkeys inside an authorization flow: POST /interaction/:id/passkey/options and .../passkey/verify.
// Two modes, decided by the browser session's state, never by the request: after a correct password (the
// session waits for this interaction's second factor) the passkey must be that user's and is the second
// factor; otherwise it is a passwordless sign-in with any discoverable passkey, user verification required.
// The challenge is bound to this interaction and used once. The verification is the passkey method of the
// sign-in pipeline (sign-in/passkey-method.ts: its budget, docs/rate-limits.md).
import type { FastifyInstance, FastifyReply } from 'fastify';
import { interactionPath } from '../begin.js';
import { isLoggedIn } from '../complete.js';
import { checkCsrfToken, checkSameOrigin } from '../csrf.js';
import type { FlowDeps } from '../flow-deps.js';
import { interactionRouteOptions, loadInteraction, type InteractionRequest } from '../interaction-context.js';
import { afterFirstFactor, boundToInteraction } from '../mfa/second-factors.js';
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
    if (pendingUser !== undefined && (await deps.passkeys.count(pendingUser)) === 0)
      throw passkeyRefused('no_passkeys', { client_id: client.id, user_id: pendingUser });
    return sendJson(reply, await deps.passkeys.authenticationOptions(flow, pendingUser));
  });

  app.post<{ Params: { id: string }; Body: PasskeyBody }>('/interaction/:id/passkey/verify', options, async (request, reply): Promise<FastifyReply> => {
    const { client, session, flow, pendingUser } = await ceremonyOf(request, deps);
    const context = { request, face: 'interaction', method: 'passkey', clientId: client.id, userId: pendingUser, answer: 'json' } as const;
    const outcome = await deps.signIn.attempt(context, () =>
      deps.methods.passkey({ boundTo: flow, response: request.body.response, pendingUser, ip: request.ip }),
    );
    if (!outcome.ok) throw passkeyRefused(outcome.reason, { client_id: client.id, user_id: outcome.userId, detail: outcome.detail });
    // Single use of the wait itself, as for a code (mfa/interaction-second-factor.ts).
    const pending = pendingUser === undefined ? undefined : await deps.secondFactors.consumePendingSignIn(session.idHash, flow);
    if (pendingUser !== undefined && pending?.userId !== pendingUser) throw passkeyFlowGone('second_factor_wait_used');
    // After an upstream provider (federation) the amr names it, not a password.
    const fresh = await deps.signIn.completeSignIn(context, reply, session, {
      userId: outcome.userId,
      amr: afterFirstFactor(outcome.amr, pending?.firstFactor ?? null),
      upstreamTokens: pending?.upstreamTokens,
    });
    await deps.interactions.loggedIn(request.params.id, fresh.idHash);
    // The interaction page goes on to consent, or back to the client (steps/show-interaction.ts).
    return sendJson(reply, { redirect: interactionPath(request.params.id) });
  });
}
