// GET /interaction/:id — shows what the parked request needs next: the login form, the consent page, or
// (neither any more) the answer to the client. A stale interaction gets the restart page, never a dead end.
import type { FastifyReply } from 'fastify';
import { OAuthError } from '../../http/errors.js';
import { restartParameters } from '../../oauth/authorize/authorization-request.js';
import { errorResponse } from '../../oauth/authorize/redirect.js';
import { interactionPath } from '../begin.js';
import { isLoggedIn } from '../complete.js';
import type { FlowDeps } from '../flow-deps.js';
import { sendNext } from '../answer.js';
import { finishInteraction, loadInteraction, sendPage, type InteractionRequest } from '../interaction-context.js';
import { renderConsentPage } from '../pages/consent-page.js';
import { renderExpiredPage } from '../pages/expired-page.js';
import { renderLoginPage } from '../pages/login-page.js';
import { pageHeadersAllowingRedirectTo } from '../pages/page-headers.js';
import { needsConsent } from '../requirements.js';
import { renderSecondFactorPage } from '../mfa/second-factor-page.js';
import { boundToInteraction } from '../mfa/second-factors.js';
import { passkeyAction, secondFactorOffer, withPasskeyScripts } from '../passkeys/passkey-fragments.js';

export async function showInteraction(request: InteractionRequest, reply: FastifyReply, deps: FlowDeps): Promise<FastifyReply> {
  const { interaction, client, session } = await loadInteraction(request, deps);
  const { request: authz } = interaction;
  const headers = pageHeadersAllowingRedirectTo(authz.redirectUri);
  if (!session) {
    const returnTo = errorResponse(authz, new OAuthError('access_denied', 'The sign-in expired before it was completed.'), deps.issuer);
    const restartUrl = `/authorize?${new URLSearchParams(restartParameters(authz)).toString()}`;
    return sendPage(reply, renderExpiredPage({ brand: deps.brand, restartUrl, returnTo, clientName: client.name }), 400, headers);
  }
  const action = interactionPath(request.params.id);
  if (interaction.loginRequired || !isLoggedIn(session)) {
    const failed = (request.query as Record<string, unknown>).failed === '1';
    const passkey = passkeyAction(`${action}/passkey`, session.csrfToken);
    const pendingUser = await deps.secondFactors.pendingUser(session.idHash, boundToInteraction(interaction.idHash));
    if (pendingUser !== undefined) {
      const offer = await secondFactorOffer(pendingUser, deps.secondFactors, passkey);
      const page = renderSecondFactorPage({ brand: deps.brand, action: `${action}/second-factor`, csrfToken: session.csrfToken, continueTo: client.name, failed, offer });
      return sendPage(reply, page, 200, offer.passkey ? withPasskeyScripts(headers) : headers);
    }
    const username = (failed ? interaction.attemptedUsername : undefined) ?? authz.loginHint;
    const page = renderLoginPage({ brand: deps.brand, action: `${action}/login`, csrfToken: session.csrfToken, clientName: client.name, failed, passkey, links: deps.selfServiceLinks?.(request.params.id), ...(username !== undefined ? { username } : {}) });
    return sendPage(reply, page, 200, withPasskeyScripts(headers));
  }
  if (await needsConsent(authz, client, session.userId, deps.consents)) {
    const catalogue = await deps.resources.catalogue();
    const describe = (scope: string) => ({ description: catalogue.description(scope), resource: catalogue.ownerOf(scope)?.name });
    return sendPage(reply, renderConsentPage({ brand: deps.brand, action: `${action}/consent`, csrfToken: session.csrfToken, clientName: client.name, scope: authz.scope, describe, username: session.username ?? '' }), 200, headers);
  }
  return sendNext(reply, await finishInteraction(request.params.id, session, deps), deps);
}
