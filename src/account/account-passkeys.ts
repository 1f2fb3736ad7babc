// The account page's passkeys (docs/second-factors.md). JSON ceremony endpoints (CSRF in the body, errors as
// Problem Details) for signing in to /account with a passkey — as the second factor after the password, or
// passwordless — and for registering one; a form POST removes one. Challenges are bound to this browser
// session. Removing the account's last second factor needs a recent sign-in, as for the authenticator app.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { epochSeconds } from '../clock.js';
import { logRefusal } from '../http/refusal-log.js';
import { isLoggedIn } from '../interaction/complete.js';
import { checkCsrfToken, checkSameOrigin, formField } from '../interaction/csrf.js';
import { seeOther } from '../interaction/interaction-context.js';
import { ACCOUNT_FLOW } from '../interaction/mfa/second-factors.js';
import { passkeySecondFactorAmr } from '../interaction/passkeys/passkeys.js';
import { passkeyFlowGone, passkeyRefused, passkeyRouteOptions, sendJson, type PasskeyBody } from '../interaction/passkeys/passkey-json.js';
import type { BrowserSession } from '../storage/browser-sessions-repository.js';
import { accountEvent } from './account-events.js';
import { ACCOUNT_PATH, FRESH_LOGIN_SECONDS, type AccountDeps } from './account-routes.js';

/** Challenges of this browser session: sign-in and registration are separate purposes of one binding. */
const boundToSession = (session: BrowserSession) => `account:${session.idHash}`;

type Body = { Body: PasskeyBody };

export function accountPasskeyRoutes(app: FastifyInstance, deps: AccountDeps): void {
  const { sessions, secondFactors: factors, passkeys } = deps;
  const options = passkeyRouteOptions();

  async function sessionOf(request: FastifyRequest<Body>): Promise<BrowserSession> {
    checkSameOrigin(request, deps.issuer);
    const session = await sessions.current(request);
    if (!session) throw passkeyFlowGone('no_browser_session');
    checkCsrfToken(request.body.csrf, session);
    return session;
  }

  /** A signed-in session that used its second factor (if the account has one). */
  async function fullySignedIn(session: BrowserSession) {
    if (!isLoggedIn(session)) return undefined;
    if (!(await factors.required(session.userId))) return session;
    return ((await factors.sessionAmr(session.idHash)) ?? []).includes('mfa') ? session : undefined;
  }

  // Sign-in: the second factor this session waits for, else passwordless.
  app.post<Body>(`${ACCOUNT_PATH}/passkey/options`, options, async (request, reply) => {
    const session = await sessionOf(request);
    const pendingUser = await factors.pendingUser(session.idHash, ACCOUNT_FLOW);
    if (pendingUser === undefined && (await fullySignedIn(session))) throw passkeyFlowGone('already_signed_in');
    if (pendingUser !== undefined && (await passkeys.count(pendingUser)) === 0) throw passkeyRefused('no_passkeys', { user_id: pendingUser });
    return sendJson(reply, await passkeys.authenticationOptions(boundToSession(session), pendingUser));
  });

  app.post<Body>(`${ACCOUNT_PATH}/passkey/verify`, options, async (request, reply) => {
    const session = await sessionOf(request);
    const pendingUser = await factors.pendingUser(session.idHash, ACCOUNT_FLOW);
    if (pendingUser === undefined && (await fullySignedIn(session))) throw passkeyFlowGone('already_signed_in');
    const context = { request, face: 'account', method: 'passkey', userId: pendingUser, answer: 'json' } as const;
    const outcome = await deps.signIn.attempt(context, () => deps.methods.passkey({ boundTo: boundToSession(session), response: request.body.response, pendingUser, ip: request.ip }));
    if (!outcome.ok) throw passkeyRefused(outcome.reason, { user_id: outcome.userId, detail: outcome.detail });
    if (pendingUser !== undefined && (await factors.consumePending(session.idHash, ACCOUNT_FLOW)) !== pendingUser) throw passkeyFlowGone('second_factor_wait_used');
    await deps.signIn.completeSignIn(context, reply, session, outcome);
    return sendJson(reply, { redirect: ACCOUNT_PATH });
  });

  // Registration: only a fully signed-in session adds a passkey to its own account.
  app.post<Body>(`${ACCOUNT_PATH}/passkeys/options`, options, async (request, reply) => {
    const signedIn = await fullySignedIn(await sessionOf(request));
    const user = signedIn && (await deps.users.findById(signedIn.userId));
    if (!signedIn || !user) throw passkeyFlowGone('not_signed_in');
    return sendJson(reply, await passkeys.registrationOptions(user, boundToSession(signedIn)));
  });

  app.post<Body>(`${ACCOUNT_PATH}/passkeys/verify`, options, async (request, reply) => {
    const signedIn = await fullySignedIn(await sessionOf(request));
    if (!signedIn) throw passkeyFlowGone('not_signed_in');
    const outcome = await passkeys.register({ id: signedIn.userId }, boundToSession(signedIn), request.body.response, request.body.name ?? '');
    if (!outcome.ok) throw passkeyRefused(outcome.reason, { user_id: signedIn.userId, detail: outcome.detail });
    await accountEvent(deps.audit, request, 'account.second_factor_added', signedIn.userId, { factor: 'passkey' });
    // This session just proved the new passkey: it counts as signed in with it (as for a confirmed authenticator app).
    const amr = (await factors.sessionAmr(signedIn.idHash)) ?? [];
    if (!amr.includes('mfa')) await factors.recordSignIn(signedIn.idHash, { amr: passkeySecondFactorAmr(outcome.deviceType), userAgent: request.headers['user-agent'], ip: request.ip });
    return sendJson(reply, { redirect: `${ACCOUNT_PATH}?done=passkey_added` });
  });

  app.post(`${ACCOUNT_PATH}/passkeys/remove`, { config: { face: 'page' as const } }, async (request, reply) => {
    checkSameOrigin(request, deps.issuer);
    const session = await sessions.current(request);
    if (!session) return seeOther(reply, ACCOUNT_PATH);
    checkCsrfToken(formField(request.body, 'csrf'), session, { href: ACCOUNT_PATH, label: 'Back to your account' });
    const signedIn = await fullySignedIn(session);
    if (!signedIn) return seeOther(reply, ACCOUNT_PATH);
    const status = await factors.status(signedIn.userId);
    const last = status.totp !== 'active' && status.passkeys <= 1;
    // The account's only second factor: removing it needs a recent sign-in (a stolen session cannot downgrade it).
    if (last && epochSeconds(deps.clock) - signedIn.authTime > FRESH_LOGIN_SECONDS) {
      logRefusal(request, { reason: 'stale_login_for_factor_removal', user_id: signedIn.userId }, 303);
      return seeOther(reply, `${ACCOUNT_PATH}?error=reauth`);
    }
    const removed = await passkeys.remove(signedIn.userId, formField(request.body, 'credential') ?? '');
    if (removed) await accountEvent(deps.audit, request, 'account.second_factor_removed', signedIn.userId, { factor: 'passkey' });
    return seeOther(reply, removed ? `${ACCOUNT_PATH}?done=passkey_removed` : ACCOUNT_PATH);
  });
}
