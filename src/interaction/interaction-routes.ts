// The login and consent pages of one parked authorization request: GET /interaction/:id shows what is
// needed next; POST .../login and POST .../consent act and always answer 303 (RFC 9700 4.12).
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { OAuthError, PageError } from '../http/errors.js';
import { pageSecurityHeaders } from '../http/html.js';
import type { AuthorizationRequest } from '../oauth/authorize/authorization-request.js';
import { errorRedirect, REDIRECT_STATUS } from '../oauth/authorize/redirect.js';
import type { BrowserSession } from '../storage/browser-sessions-repository.js';
import type { Client } from '../storage/clients-repository.js';
import type { Interaction } from '../storage/interactions-repository.js';
import { interactionPath } from './begin.js';
import { completeAuthorization, isLoggedIn } from './complete.js';
import { checkCsrfToken, checkSameOrigin, formField } from './csrf.js';
import type { FlowDeps } from './flow-deps.js';
import { authenticate } from './login/authenticate.js';
import { renderConsentPage } from './pages/consent-page.js';
import { renderExpiredPage } from './pages/expired-page.js';
import { renderLoginPage } from './pages/login-page.js';
import { pageHeadersAllowingRedirectTo } from './pages/page-headers.js';
import { needsConsent } from './requirements.js';

type Params = { Params: { id: string } };
// The id is a base64url random token; anything else is refused before touching the database.
const page = {
  config: { face: 'page' as const },
  schema: { params: { type: 'object', properties: { id: { type: 'string', pattern: '^[A-Za-z0-9_-]{16,64}$' } }, required: ['id'] } },
};

interface Loaded {
  interaction: Interaction<AuthorizationRequest>;
  client: Client;
  /** The browser session the interaction belongs to; undefined when it expired or is another browser's. */
  session: BrowserSession | undefined;
}

export function interactionRoutes(app: FastifyInstance, deps: FlowDeps): void {
  const load = async (request: FastifyRequest<Params>): Promise<Loaded> => {
    const interaction = await deps.interactions.find(request.params.id);
    const client = interaction && (await deps.clients.find(interaction.clientId));
    if (!interaction || !client) throw new PageError('Sign-in not found', 'This sign-in link is not valid. Return to the application and start again.');
    const session = await deps.sessions.current(request);
    const live = !interaction.expired && session?.idHash === interaction.sessionHash;
    return { interaction, client, session: live ? session : undefined };
  };
  const sendPage = (reply: FastifyReply, html: string, status = 200, headers: Record<string, string> = pageSecurityHeaders) =>
    reply.code(status).headers(headers).type('text/html; charset=utf-8').send(html);
  const seeOther = (reply: FastifyReply, url: string) => reply.headers({ 'cache-control': 'no-store' }).redirect(url, REDIRECT_STATUS);

  app.get<Params>('/interaction/:id', page, async (request, reply) => {
    const { interaction, client, session } = await load(request);
    const { request: authz } = interaction;
    if (!session) {
      const returnUrl = errorRedirect(authz, new OAuthError('access_denied', 'The sign-in expired before it was completed.'), deps.issuer);
      const restartUrl = `/authorize?${new URLSearchParams(authz.parameters).toString()}`;
      return sendPage(reply, renderExpiredPage({ restartUrl, returnUrl, clientName: client.name }), 400);
    }
    const action = interactionPath(request.params.id);
    if (interaction.loginRequired || !isLoggedIn(session)) {
      const failed = (request.query as Record<string, unknown>).failed === '1';
      const loginHint = authz.loginHint;
      const html = renderLoginPage({ action: `${action}/login`, csrfToken: session.csrfToken, clientName: client.name, failed, ...(loginHint ? { loginHint } : {}) });
      return sendPage(reply, html, 200, pageHeadersAllowingRedirectTo(authz.redirectUri));
    }
    if (await needsConsent(authz, client, session.userId, deps.consents)) {
      const user = await deps.users.findById(session.userId);
      const html = renderConsentPage({ action: `${action}/consent`, csrfToken: session.csrfToken, clientName: client.name, scope: authz.scope, username: user?.username ?? '' });
      return sendPage(reply, html, 200, pageHeadersAllowingRedirectTo(authz.redirectUri));
    }
    return seeOther(reply, await finish(request.params.id, session, deps));
  });

  app.post<Params>('/interaction/:id/login', page, async (request, reply) => {
    checkSameOrigin(request, deps.issuer);
    const { interaction, client, session } = await load(request);
    const back = interactionPath(request.params.id);
    if (!session) return seeOther(reply, back);
    checkCsrfToken(formField(request.body, 'csrf'), session);
    if (!interaction.loginRequired && isLoggedIn(session)) return seeOther(reply, back);

    const username = formField(request.body, 'username') ?? '';
    const password = formField(request.body, 'password') ?? '';
    const user = await authenticate({ username, password, ip: request.ip }, { users: deps.users, guard: deps.loginGuard });
    if (!user) return seeOther(reply, `${back}?failed=1`);

    const fresh = await deps.sessions.login(reply, session, user.id);
    await deps.interactions.loggedIn(request.params.id, fresh.idHash);
    if (isLoggedIn(fresh) && !(await needsConsent(interaction.request, client, user.id, deps.consents))) {
      return seeOther(reply, await finish(request.params.id, fresh, deps));
    }
    return seeOther(reply, back);
  });

  app.post<Params>('/interaction/:id/consent', page, async (request, reply) => {
    checkSameOrigin(request, deps.issuer);
    const { interaction, session } = await load(request);
    const back = interactionPath(request.params.id);
    if (!session) return seeOther(reply, back);
    checkCsrfToken(formField(request.body, 'csrf'), session);
    if (interaction.loginRequired || !isLoggedIn(session)) return seeOther(reply, back);

    const decision = formField(request.body, 'decision');
    if (decision !== 'allow' && decision !== 'deny') throw new PageError('Invalid request', 'Choose Allow or Deny.');
    if (decision === 'deny') {
      const consumed = await deps.interactions.consume(request.params.id, session.idHash);
      if (!consumed) return seeOther(reply, back);
      return seeOther(reply, errorRedirect(consumed.request, new OAuthError('access_denied', 'The user denied the request.'), deps.issuer));
    }
    await deps.consents.grant(session.userId, interaction.clientId, interaction.request.scope);
    return seeOther(reply, await finish(request.params.id, session, deps));
  });
}

/** Consumes the interaction (single use) and issues the code; a lost race goes back to the page. */
async function finish(id: string, session: BrowserSession & { userId: string; authTime: number }, deps: FlowDeps): Promise<string> {
  const consumed = await deps.interactions.consume(id, session.idHash);
  if (!consumed) return interactionPath(id);
  return completeAuthorization(consumed.request, session, deps);
}
