// After /authorize validated a request: answer at once when no user interaction is needed (or allowed,
// with prompt=none), otherwise park the request server-side and send the browser to the interaction page.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { epochSeconds } from '../clock.js';
import { OAuthError } from '../http/errors.js';
import type { AuthorizationRequest } from '../oauth/authorize/authorization-request.js';
import { AuthorizationErrorRedirect } from '../oauth/authorize/redirect.js';
import type { Client } from '../storage/repositories/clients-repository.js';
import type { Next } from './answer.js';
import { completeAuthorization, isLoggedIn } from './complete.js';
import type { FlowDeps } from './flow-deps.js';
import { needsConsent, needsLogin } from './requirements.js';
import { awaitStepUp, needsStepUp, unmetRequirements } from './mfa/step-up.js';

export const interactionPath = (id: string): string => `/interaction/${id}`;

/** Returns where to send the browser next: the interaction page, or the answer to the client. */
export async function beginAuthorization(
  request: AuthorizationRequest,
  client: Client,
  http: { request: FastifyRequest; reply: FastifyReply },
  deps: FlowDeps,
): Promise<Next> {
  const session = await deps.sessions.current(http.request);
  const passwordRequired = needsLogin(request, session, epochSeconds(deps.clock));
  // A signed-in session lacking a second factor this flow needs completes it (and only it) first.
  const stepUp = !passwordRequired && isLoggedIn(session) && (await needsStepUp(session, request, client, deps.secondFactors));
  const loginRequired = passwordRequired || stepUp;
  const consentRequired = !loginRequired && isLoggedIn(session) && (await needsConsent(request, client, session.userId, deps.consents));

  // OIDC Core 3.1.2.6: prompt=none never shows a page; the client learns what would have been needed.
  if (request.prompt.includes('none')) {
    // Signed in, but the account has no second factor the flow demands: no page can be shown to set one up
    // (OpenID Connect Core Error Code unmet_authentication_requirements).
    if (stepUp && !(await deps.secondFactors.required(session.userId))) throw new AuthorizationErrorRedirect(request, unmetRequirements());
    if (loginRequired) throw new AuthorizationErrorRedirect(request, new OAuthError('login_required', 'The user is not logged in.'));
    if (consentRequired) throw new AuthorizationErrorRedirect(request, new OAuthError('consent_required', 'The user has not consented.'));
  }
  if (!loginRequired && !consentRequired && isLoggedIn(session)) return completeAuthorization(request, session, deps);

  const browser = await deps.sessions.ensure(http.request, http.reply);
  const id = await deps.interactions.create({
    sessionHash: browser.idHash,
    clientId: client.id,
    request,
    loginRequired,
    ttlSeconds: deps.interactionTtlSeconds,
  });
  if (stepUp && isLoggedIn(browser)) await awaitStepUp(browser.idHash, browser.userId, id, deps.secondFactors);
  return interactionPath(id);
}
