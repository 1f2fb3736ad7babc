// GET /interaction/:id — shows what the parked request needs next: the login form, the second factor (the
// account's, or setting one up when the flow demands one the account lacks), the consent page, or (none of
// them any more) the answer to the client. A stale interaction gets the restart page, never a dead end.
import type { FastifyReply } from 'fastify';
import type { Client } from '../../storage/repositories/clients-repository.js';
import { OAuthError } from '../../http/errors.js';
import { pageSecurityHeaders } from '../../http/html.js';
import { restartParameters } from '../../oauth/authorize/authorization-request.js';
import { errorResponse } from '../../oauth/authorize/redirect.js';
import { interactionPath } from '../begin.js';
import { isLoggedIn } from '../complete.js';
import type { FlowDeps } from '../flow-deps.js';
import { sendNext } from '../answer.js';
import { finishInteraction, loadInteraction, sendPage, type InteractionRequest } from '../interaction-context.js';
import { renderConsentPage } from '../pages/consent-page.js';
import { renderExpiredPage } from '../pages/expired-page.js';
import { pageHeadersPostingTo } from '../pages/page-headers.js';
import { DEVICE_CONSENT_WARNING, renderDeviceExpiredPage } from '../device/device-pages.js';
import { DEVICE_PAGE_PATH } from '../../oauth/device/device-authorizations.js';
import { renderLoginPage } from '../pages/login-page.js';
import { needsConsent } from '../requirements.js';
import { renderSecondFactorPage } from '../mfa/second-factor-page.js';
import { boundToInteraction } from '../mfa/second-factors.js';
import { loginPageFederation, usernameHint } from '../federation/login-page-federation.js';
import { hasFreshProof } from '../mfa/fresh-proof.js';
import { renderSetUpPage, SET_UP_ERRORS } from '../mfa/set-up-page.js';
import { secondFactorShortfall } from '../mfa/step-up.js';
import { passkeyAction, secondFactorOffer, withPasskeyScripts } from '../passkeys/passkey-fragments.js';

/** The host a URI names (or its scheme, for a native app's private-use scheme). */
const hostOf = (uri: string | undefined): string => {
  if (!uri || !URL.canParse(uri)) return 'an address it did not name';
  const url = new URL(uri);
  return url.host || url.protocol;
};

/** A metadata document's host is its client_id's; a self-registered client's, where this redirect goes. */
const unregisteredOf = (client: Pick<Client, 'id' | 'provenance'>, redirectUri: string | undefined) =>
  client.provenance ? { kind: client.provenance, host: hostOf(client.provenance === 'metadata_document' ? client.id : redirectUri) } : undefined;

export async function showInteraction(request: InteractionRequest, reply: FastifyReply, deps: FlowDeps): Promise<FastifyReply> {
  const { interaction, client, session } = await loadInteraction(request, deps);
  const { request: authz } = interaction;
  const unregistered = unregisteredOf(client, authz.redirectUri);
  // form-action 'self' alone: after our forms the client is answered with the hand-over page (answer.ts).
  const headers: Record<keyof typeof pageSecurityHeaders, string> = pageSecurityHeaders;
  if (!session) {
    if (authz.device) return sendPage(reply, renderDeviceExpiredPage(deps.brand, DEVICE_PAGE_PATH), 400, headers);
    const returnTo = errorResponse(authz, new OAuthError('access_denied', 'The sign-in expired before it was completed.'), deps.issuer);
    const restartUrl = `/authorize?${new URLSearchParams(restartParameters(authz)).toString()}`;
    // In form_post mode its "Return to the application" is a form posting to the client.
    const expiredHeaders = authz.responseMode === 'form_post' ? pageHeadersPostingTo(authz.redirectUri) : headers;
    return sendPage(reply, renderExpiredPage({ brand: deps.brand, restartUrl, returnTo, clientName: client.name }), 400, expiredHeaders);
  }
  const action = interactionPath(request.params.id);
  const failed = (request.query as Record<string, unknown>).failed === '1';
  const passkey = passkeyAction(`${action}/passkey`, session.csrfToken);
  const flow = boundToInteraction(interaction.idHash);
  /** The second-factor page of the user this flow waits for. */
  const secondFactorPage = async (pendingUser: string) => {
    const offer = await secondFactorOffer(pendingUser, deps.secondFactors, passkey);
    const page = renderSecondFactorPage({
      brand: deps.brand,
      action: `${action}/second-factor`,
      csrfToken: session.csrfToken,
      continueTo: client.name,
      failed,
      offer,
    });
    return sendPage(reply, page, 200, offer.passkey ? withPasskeyScripts(headers) : headers);
  };
  if (interaction.loginRequired || !isLoggedIn(session)) {
    const pendingUser = await deps.secondFactors.pendingUser(session.idHash, flow);
    if (pendingUser !== undefined) return secondFactorPage(pendingUser);
    const federation = await loginPageFederation(
      { id: request.params.id, request: authz },
      client,
      { action: `${action}/federation`, csrfToken: session.csrfToken },
      deps,
    );
    if (federation.hinted && !failed) return federation.hinted(reply);
    const username = (failed ? interaction.attemptedUsername : undefined) ?? usernameHint(authz.loginHint);
    const page = renderLoginPage({
      brand: deps.brand,
      action: `${action}/login`,
      csrfToken: session.csrfToken,
      // An open client's name is its own claim: the login page names the host beside it (docs/agents.md).
      clientName: unregistered ? `${client.name} (${unregistered.host})` : client.name,
      failed,
      passkey,
      federation,
      links: deps.selfServiceLinks?.(request.params.id),
      ...(username !== undefined ? { username } : {}),
    });
    return sendPage(reply, page, 200, withPasskeyScripts(federation.headers(headers)));
  }
  // Signed in, but short of a second factor this flow demands: use the account's, or set one up here.
  const shortfall = await secondFactorShortfall(session, authz, client, deps.secondFactors);
  if (shortfall === 'use') {
    if ((await deps.secondFactors.pendingUser(session.idHash, flow)) !== session.userId)
      await deps.secondFactors.awaitSecondFactor(session.idHash, session.userId, flow);
    return secondFactorPage(session.userId);
  }
  if (shortfall === 'set_up') {
    const error = SET_UP_ERRORS[String((request.query as Record<string, unknown>).error ?? '')];
    const page = renderSetUpPage({
      brand: deps.brand,
      action,
      csrfToken: session.csrfToken,
      clientName: client.name,
      freshProof: await hasFreshProof(session, deps),
      enrollment: await deps.secondFactors.pendingTotp({ id: session.userId, username: session.username ?? '' }),
      passkey: passkeyAction(`${action}/set-up/passkey`, session.csrfToken),
      error,
    });
    return sendPage(reply, page, 200, withPasskeyScripts(headers));
  }
  if (await needsConsent(authz, client, session.userId, deps.consents)) {
    const catalogue = await deps.resources.catalogue();
    const describe = (scope: string) => ({ description: catalogue.description(scope), resource: catalogue.ownerOf(scope)?.name });
    return sendPage(
      reply,
      renderConsentPage({
        brand: deps.brand,
        action: `${action}/consent`,
        csrfToken: session.csrfToken,
        clientName: client.name,
        scope: authz.scope,
        describe,
        username: session.username ?? '',
        ...(authz.device ? { warning: DEVICE_CONSENT_WARNING } : {}),
        ...(unregistered ? { unregistered } : {}),
      }),
      200,
      headers,
    );
  }
  return sendNext(reply, await finishInteraction(request.params.id, session, deps, { request: interaction.request, client }), deps);
}
