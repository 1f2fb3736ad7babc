// GET/POST /logout — OIDC RP-Initiated Logout 1.0. With a valid id_token_hint the session ends at once and
// the browser goes to the post_logout_redirect_uri, which must exactly equal one registered for the hint's
// client (§3), with `state` echoed. Without a trustworthy hint the user confirms on a page (POST + CSRF),
// so another site cannot sign people out, and no redirect happens.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { JSONWebKeySet } from 'jose';
import type { Brand } from '../../http/brand.js';
import { PageError } from '../../http/errors.js';
import { pageSecurityHeaders } from '../../http/html.js';
import { readParameters } from '../../oauth/authorize/parameters.js';
import { REDIRECT_STATUS, withQuery } from '../../oauth/authorize/redirect.js';
import type { ClientsRepository } from '../../storage/repositories/clients-repository.js';
import { checkCsrfToken, checkSameOrigin, formField } from '../csrf.js';
import { renderLoggedOutPage, renderLogoutConfirmPage } from '../pages/logout-pages.js';
import type { BrowserSessions } from '../session/browser-sessions.js';
import { verifyIdTokenHint } from '../../oauth/authorize/id-token-hint.js';

export interface LogoutDeps {
  issuer: string;
  brand: Brand;
  sessionTtlSeconds: number;
  sessions: BrowserSessions;
  clients: Pick<ClientsRepository, 'find'>;
  jwks: () => Promise<JSONWebKeySet>;
}

const page = { config: { face: 'page' as const } };
/** RP-initiated logout may be called by anyone's browser: the per-address page budget. */
const limitedPage = { config: { face: 'page' as const, limit: 'pages' as const } };

/** The RP-Initiated Logout 1.0 §2 parameters read; others are ignored. (The lengths are informative: logout stores nothing.) */
const LOGOUT_PARAMETERS = { id_token_hint: 4096, post_logout_redirect_uri: 2048, state: 2048, client_id: 200 } as const;
const LOGGED_OUT_PATH = '/logout/done';

export function logoutRoutes(app: FastifyInstance, deps: LogoutDeps): void {
  const sendPage = (reply: FastifyReply, html: string) => reply.headers(pageSecurityHeaders).type('text/html; charset=utf-8').send(html);

  const rpInitiated = async (request: FastifyRequest, reply: FastifyReply, source: unknown) => {
    const params = readParameters(source, LOGOUT_PARAMETERS);
    if (params.duplicates.size > 0)
      throw new PageError('Invalid request', 'A logout parameter was sent more than once.', 400, {}, { log: { reason: 'logout_parameter_duplicated' } });
    const { id_token_hint: rawHint, post_logout_redirect_uri: redirectUri, state, client_id: clientId } = params.values;
    const hint = rawHint === undefined ? undefined : await verifyIdTokenHint(rawHint, deps);
    if (hint && clientId !== undefined && clientId !== hint.clientId) {
      throw new PageError(
        'Invalid request',
        'client_id does not match the id_token_hint.',
        400,
        {},
        { log: { reason: 'client_id_hint_mismatch', client_id: clientId, hint_client_id: hint.clientId } },
      );
    }
    const client = hint && (await deps.clients.find(hint.clientId));
    if (redirectUri !== undefined && client && !client.postLogoutRedirectUris.includes(redirectUri)) {
      throw new PageError(
        'Invalid redirect address',
        'The post_logout_redirect_uri is not registered for this application.',
        400,
        {},
        {
          log: {
            reason: 'post_logout_redirect_uri_not_registered',
            client_id: client.id,
            presented_redirect_uri: redirectUri,
            registered_redirect_uris: client.postLogoutRedirectUris,
          },
        },
      );
    }
    const session = await deps.sessions.current(request);
    // A hint for another user than the one signed in here does not speak for this session: ask.
    if (!client || (session?.userId && session.userId !== hint?.sub)) {
      if (!session) return sendPage(reply, renderLoggedOutPage(deps.brand));
      return sendPage(reply, renderLogoutConfirmPage({ brand: deps.brand, csrfToken: session.csrfToken }));
    }
    await deps.sessions.end(reply, session);
    reply.header('cache-control', 'no-store');
    return reply.redirect(redirectUri === undefined ? LOGGED_OUT_PATH : withQuery(redirectUri, { state }), REDIRECT_STATUS);
  };

  app.get('/logout', limitedPage, (request, reply) => rpInitiated(request, reply, request.query));
  app.post('/logout', limitedPage, async (request, reply) => {
    if (formField(request.body, 'csrf') === undefined) return rpInitiated(request, reply, request.body);
    // The confirmation form of this server.
    checkSameOrigin(request, deps.issuer);
    const session = await deps.sessions.current(request);
    if (session) {
      checkCsrfToken(formField(request.body, 'csrf'), session);
      await deps.sessions.end(reply, session);
    }
    reply.header('cache-control', 'no-store');
    return reply.redirect(LOGGED_OUT_PATH, REDIRECT_STATUS);
  });
  app.get(LOGGED_OUT_PATH, page, (_request, reply) => sendPage(reply, renderLoggedOutPage(deps.brand)));
}
