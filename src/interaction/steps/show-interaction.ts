// GET /interaction/:id — shows what the parked request needs next: the login form, the consent page, or
// (neither any more) the answer to the client. A stale interaction gets the restart page, never a dead end.
import type { FastifyReply } from 'fastify';
import { OAuthError } from '../../http/errors.js';
import { errorRedirect } from '../../oauth/authorize/redirect.js';
import { interactionPath } from '../begin.js';
import { isLoggedIn } from '../complete.js';
import type { FlowDeps } from '../flow-deps.js';
import { finishInteraction, loadInteraction, sendPage, seeOther, type InteractionRequest } from '../interaction-context.js';
import { renderConsentPage } from '../pages/consent-page.js';
import { renderExpiredPage } from '../pages/expired-page.js';
import { renderLoginPage } from '../pages/login-page.js';
import { pageHeadersAllowingRedirectTo } from '../pages/page-headers.js';
import { needsConsent } from '../requirements.js';

export async function showInteraction(request: InteractionRequest, reply: FastifyReply, deps: FlowDeps): Promise<FastifyReply> {
  const { interaction, client, session } = await loadInteraction(request, deps);
  const { request: authz } = interaction;
  if (!session) {
    const returnUrl = errorRedirect(authz, new OAuthError('access_denied', 'The sign-in expired before it was completed.'), deps.issuer);
    const restartUrl = `/authorize?${new URLSearchParams(authz.parameters).toString()}`;
    return sendPage(reply, renderExpiredPage({ brand: deps.brand, restartUrl, returnUrl, clientName: client.name }), 400);
  }
  const action = interactionPath(request.params.id);
  const headers = pageHeadersAllowingRedirectTo(authz.redirectUri);
  if (interaction.loginRequired || !isLoggedIn(session)) {
    const failed = (request.query as Record<string, unknown>).failed === '1';
    const username = (failed ? interaction.attemptedUsername : undefined) ?? authz.loginHint;
    const page = renderLoginPage({ brand: deps.brand, action: `${action}/login`, csrfToken: session.csrfToken, clientName: client.name, failed, ...(username !== undefined ? { username } : {}) });
    return sendPage(reply, page, 200, headers);
  }
  if (await needsConsent(authz, client, session.userId, deps.consents)) {
    return sendPage(reply, renderConsentPage({ brand: deps.brand, action: `${action}/consent`, csrfToken: session.csrfToken, clientName: client.name, scope: authz.scope, username: session.username ?? '' }), 200, headers);
  }
  return seeOther(reply, await finishInteraction(request.params.id, session, deps));
}
