// The built-in demo application at /demo: a confidential OAuth client in the backend-for-frontend shape.
// It knows this server only through HTTP (issuer URL, client id and secret), like any other application,
// and keeps its tokens in a bounded server-side session store; the browser gets an opaque cookie.
import cookie from '@fastify/cookie';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { randomToken, safeEqual } from '../crypto/random.js';
import { allowLogo, type Brand } from '../http/brand.js';
import { PageError } from '../http/errors.js';
import { pageSecurityHeaders } from '../http/html.js';
import { demoCookie } from './cookie.js';
import { renderSignedIn, renderSignedOut } from './pages.js';
import { decodeAccessToken, relyingParty, type PendingLogin, type RelyingPartyOptions, type Tokens } from './relying-party.js';
import { sessionStore } from './session-store.js';

export interface DemoOptions extends RelyingPartyOptions {
  brand: Brand;
  /** Whether any account exists; when not, the page says how to create one. */
  anyUsers?: () => Promise<boolean>;
  now?: () => number;
  maxSessions?: number;
  maxSessionsPerAddress?: number;
}

interface DemoSession {
  csrf: string;
  pending?: PendingLogin;
  tokens?: Tokens;
  notice?: string;
}

const DEFAULT_MAX_SESSIONS = 1000;
// One address holds at most 1% of the store: filling it takes 100 addresses at their cap (docs/demo.md).
const DEFAULT_MAX_SESSIONS_PER_ADDRESS = 10;
const IDLE_MS = 30 * 60_000;
const page = { config: { face: 'page' as const } };
// Each sign-in start takes a slot in the bounded session store, so it draws on the per-address anonymous
// budget (RATE_LIMIT_ANONYMOUS, src/http/anonymous-limit.ts), not the far larger page budget (issue 28 S7:
// 1,016 starts from one address pushed every other visitor out); the store's per-address cap does the rest.
const limitedPage = { config: { face: 'page' as const, limit: 'anonymous' as const } };
const back = { href: '/demo', label: 'Back to the demo' };
const refused = (detail: string, status = 400) => new PageError('Demo: request refused', detail, status, {}, { back });

export async function demoApp(app: FastifyInstance, options: DemoOptions): Promise<void> {
  if (!app.hasRequestDecorator('cookies')) await app.register(cookie);
  app.addHook('onSend', async (_request, reply, payload) => {
    for (const [name, value] of Object.entries(pageSecurityHeaders)) if (!reply.hasHeader(name)) reply.header(name, value);
    allowLogo(reply, options.brand);
    return payload;
  });
  const rp = relyingParty(options);
  const sessions = sessionStore<DemoSession>({
    maxEntries: options.maxSessions ?? DEFAULT_MAX_SESSIONS,
    maxPerOwner: options.maxSessionsPerAddress ?? DEFAULT_MAX_SESSIONS_PER_ADDRESS,
    idleMs: IDLE_MS,
    now: options.now ?? Date.now,
  });
  const jar = demoCookie(options.issuer);
  const html = (reply: FastifyReply, body: string) => reply.type('text/html; charset=utf-8').send(body);
  const current = (request: FastifyRequest) => {
    const id = request.cookies[jar.name];
    return { id, session: sessions.get(id) };
  };

  /** Origin and synchroniser token, as on the login pages: a cross-site form cannot refresh or sign out. */
  const checkForm = (request: FastifyRequest, session: DemoSession | undefined): DemoSession => {
    const origin = request.headers.origin;
    if ((origin !== undefined && origin !== 'null' && origin !== new URL(options.issuer).origin) || request.headers['sec-fetch-site'] === 'cross-site') {
      request.log.warn({ origin }, 'demo: cross-site form refused');
      throw refused('This form was submitted from another site.', 403);
    }
    const submitted = (request.body as Record<string, unknown> | undefined)?.csrf;
    if (!session || typeof submitted !== 'string' || !safeEqual(submitted, session.csrf)) {
      request.log.warn('demo: form without a valid CSRF token refused');
      throw refused('The form has expired or did not come from this page. Go back and try again.', 403);
    }
    return session;
  };

  app.get('/demo', page, async (request, reply) => {
    const { session } = current(request);
    if (!session?.tokens) return html(reply, renderSignedOut({ brand: options.brand, noUsersYet: !(await (options.anyUsers?.() ?? true)) }));
    const { tokens } = session;
    const path = `/v1/users/${encodeURIComponent(String(tokens.idClaims.sub))}`;
    const api = await rp.callApi(path, tokens.accessToken).then(
      (answer) => ({ path, ...answer }),
      (error: unknown) => {
        request.log.warn({ err: error }, 'demo: API call failed');
        return { path, error: 'The API could not be reached.' };
      },
    );
    const notice = session.notice;
    delete session.notice;
    return html(
      reply,
      renderSignedIn({
        brand: options.brand,
        csrf: session.csrf,
        idClaims: tokens.idClaims,
        accessClaims: decodeAccessToken(tokens.accessToken),
        hasRefreshToken: !!tokens.refreshToken,
        api,
        notice,
      }),
    );
  });

  app.get('/demo/login', limitedPage, async (request, reply) => {
    const started = await rp.startLogin().catch((error: unknown) => {
      request.log.error({ err: error }, 'demo: this server is unreachable at its ISSUER address');
      throw new PageError(
        'Demo unavailable',
        `The demo could not reach this server at ${options.issuer} (ISSUER). That address must be reachable from the server itself.`,
        503,
        {},
        { back },
      );
    });
    const { url, pending } = started;
    // A fresh id for every attempt: whatever cookie the browser had does not carry into the new sign-in.
    sessions.delete(current(request).id);
    jar.set(reply, sessions.create({ csrf: randomToken(), pending }, request.ip));
    return reply.header('cache-control', 'no-store').redirect(url, 303);
  });

  app.get('/demo/callback', limitedPage, async (request, reply) => {
    const { id, session } = current(request);
    const pending = session?.pending;
    if (!id || !session || !pending) {
      request.log.warn('demo: callback without a sign-in started in this browser');
      throw refused('This sign-in was not started from this browser, or it has expired. Start again from the demo.');
    }
    // Single use: a replayed callback finds nothing pending.
    delete session.pending;
    let tokens: Tokens;
    try {
      tokens = await rp.finishLogin(new URL(request.url, options.issuer), pending);
    } catch (error) {
      request.log.warn({ err: error }, 'demo: sign-in response refused');
      const message = error instanceof Error && 'error' in error && typeof error.error === 'string' ? ` (${error.error})` : '';
      throw refused(`The sign-in response was not accepted${message}. Start again from the demo.`);
    }
    // Signed in: a new session id, so an id seen before sign-in is worth nothing after it.
    jar.set(reply, sessions.rotate(id, { csrf: randomToken(), tokens })!);
    return reply.header('cache-control', 'no-store').redirect('/demo', 303);
  });

  app.post('/demo/refresh', page, async (request, reply) => {
    const session = checkForm(request, current(request).session);
    if (!session.tokens) throw refused('You are not signed in to the demo.');
    try {
      session.tokens = await rp.refresh(session.tokens);
      session.notice = 'Tokens refreshed: a new access token (and a rotated refresh token) came from the token endpoint.';
    } catch (error) {
      request.log.warn({ err: error }, 'demo: refresh failed');
      throw refused('The refresh was not accepted (the sign-in may have ended). Sign in again.');
    }
    return reply.header('cache-control', 'no-store').redirect('/demo', 303);
  });

  app.post('/demo/logout', page, async (request, reply) => {
    const { id, session } = current(request);
    const checked = checkForm(request, session);
    sessions.delete(id);
    jar.clear(reply);
    // RP-initiated logout at the server: with the id_token as hint it ends the server's session too
    // and returns to /demo (the registered post_logout_redirect_uri).
    const target = checked.tokens ? await rp.logoutUrl(checked.tokens.idToken) : '/demo';
    return reply.header('cache-control', 'no-store').redirect(target, 303);
  });
}
