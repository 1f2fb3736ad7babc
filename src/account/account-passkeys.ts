// The account page's passkeys (docs/second-factors.md). JSON ceremony endpoints (CSRF in the body, errors as
// Problem Details) for signing in to /account with a passkey — as the second factor after the password, or
// passwordless — for re-authenticating before a factor change, and for registering one; a form POST removes
// one. Challenges are bound to this browser session. Adding or removing a factor needs a fresh proof.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { ProblemError } from '../http/errors.js';
import { logRefusal } from '../http/refusal-log.js';
import { checkCsrfToken, checkSameOrigin, formField } from '../interaction/csrf.js';
import { seeOther } from '../interaction/interaction-context.js';
import { ACCOUNT_FLOW, afterFirstFactor } from '../interaction/mfa/second-factors.js';
import { passkeyFlowGone, passkeyRefused, passkeyRouteOptions, sendJson, type PasskeyBody } from '../interaction/passkeys/passkey-json.js';
import type { BrowserSession } from '../storage/repositories/browser-sessions-repository.js';
import { accountEvent } from './account-events.js';
import { currentPreSession } from './pre-session.js';
import { ACCOUNT_PATH, type AccountDeps } from './account-routes.js';
import { fullySignedIn as accountSession, hasFreshProof, type SignedIn } from './account-session.js';

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

  const fullySignedIn = (session: BrowserSession) => accountSession(session, factors);

  /** Registration and removal change the account's factors: a fully signed-in session with a fresh proof. */
  async function mayChangeFactors(session: BrowserSession | undefined): Promise<SignedIn> {
    const signedIn = session && (await fullySignedIn(session));
    if (!signedIn) throw passkeyFlowGone('not_signed_in');
    if (!(await hasFreshProof(signedIn, deps))) throw reauthenticationRequired();
    return signedIn;
  }

  /**
   * The sign-in ceremony's browser: its session (a second factor may be awaited), or — before any session
   * exists — its pre-session token (pre-session.ts), to which a passwordless challenge is bound. Either way
   * the route draws on the per-address page budget, so challenges cannot be minted without bound.
   */
  async function signInCeremonyOf(request: FastifyRequest<Body>) {
    checkSameOrigin(request, deps.issuer);
    const session = await sessions.current(request);
    if (!session) {
      const pre = currentPreSession(request, deps.issuer);
      if (!pre) throw passkeyFlowGone('no_browser_session');
      checkCsrfToken(request.body.csrf, pre);
      return { session: undefined, boundTo: pre.binding, pendingUser: undefined };
    }
    checkCsrfToken(request.body.csrf, session);
    const pendingUser = await factors.pendingUser(session.idHash, ACCOUNT_FLOW);
    if (pendingUser === undefined && (await fullySignedIn(session))) throw passkeyFlowGone('already_signed_in');
    return { session, boundTo: boundToSession(session), pendingUser };
  }

  // Sign-in: the second factor this session waits for, else passwordless.
  app.post<Body>(`${ACCOUNT_PATH}/passkey/options`, options, async (request, reply) => {
    const { boundTo, pendingUser } = await signInCeremonyOf(request);
    if (pendingUser !== undefined && (await passkeys.count(pendingUser)) === 0) throw passkeyRefused('no_passkeys', { user_id: pendingUser });
    return sendJson(reply, await passkeys.authenticationOptions(boundTo, pendingUser));
  });

  app.post<Body>(`${ACCOUNT_PATH}/passkey/verify`, options, async (request, reply) => {
    const { session, boundTo, pendingUser } = await signInCeremonyOf(request);
    const context = { request, face: 'account', method: 'passkey', userId: pendingUser, answer: 'json' } as const;
    const outcome = await deps.signIn.attempt(context, () => deps.methods.passkey({ boundTo, response: request.body.response, pendingUser, ip: request.ip }));
    if (!outcome.ok) throw passkeyRefused(outcome.reason, { user_id: outcome.userId, detail: outcome.detail });
    const pending = session && pendingUser !== undefined ? await factors.consumePendingSignIn(session.idHash, ACCOUNT_FLOW) : undefined;
    if (session && pendingUser !== undefined && pending?.userId !== pendingUser) throw passkeyFlowGone('second_factor_wait_used');
    // After a provider's sign-in the final amr names `fed` (the first factor kept with the wait).
    await deps.signIn.completeSignIn(context, reply, session, {
      userId: outcome.userId,
      amr: afterFirstFactor(outcome.amr, pending?.firstFactor ?? null),
      upstreamTokens: pending?.upstreamTokens,
    });
    return sendJson(reply, { redirect: ACCOUNT_PATH });
  });

  // Re-authentication (S1) with one of the account's own passkeys, like the password or a code on POST
  // /account/reauth: the pipeline's passkey method and budget (a refusal is login.failed), a challenge of its
  // own binding, and on success only the session's proof is made fresh (its amr does not change).
  const reauthBinding = (session: BrowserSession) => `reauth:${boundToSession(session)}`;
  async function reauthenticating(request: FastifyRequest<Body>): Promise<SignedIn> {
    const signedIn = await fullySignedIn(await sessionOf(request));
    if (!signedIn) throw passkeyFlowGone('not_signed_in');
    return signedIn;
  }

  app.post<Body>(`${ACCOUNT_PATH}/reauth/passkey/options`, options, async (request, reply) => {
    const signedIn = await reauthenticating(request);
    if ((await passkeys.count(signedIn.userId)) === 0) throw passkeyRefused('no_passkeys', { user_id: signedIn.userId });
    return sendJson(reply, await passkeys.authenticationOptions(reauthBinding(signedIn), signedIn.userId));
  });

  app.post<Body>(`${ACCOUNT_PATH}/reauth/passkey/verify`, options, async (request, reply) => {
    const signedIn = await reauthenticating(request);
    const context = { request, face: 'account', method: 'passkey', userId: signedIn.userId, answer: 'json' } as const;
    const outcome = await deps.signIn.attempt(context, () =>
      deps.methods.passkey({ boundTo: reauthBinding(signedIn), response: request.body.response, pendingUser: signedIn.userId, ip: request.ip }),
    );
    if (!outcome.ok || outcome.userId !== signedIn.userId)
      throw passkeyRefused(outcome.ok ? 'credential_of_another_user' : outcome.reason, {
        user_id: signedIn.userId,
        ...(outcome.ok ? {} : { detail: outcome.detail }),
      });
    await factors.recordProof(signedIn.idHash);
    return sendJson(reply, { redirect: `${ACCOUNT_PATH}?done=reauth` });
  });

  // Registration: only a fully signed-in session with a fresh proof adds a passkey to its own account.
  app.post<Body>(`${ACCOUNT_PATH}/passkeys/options`, options, async (request, reply) => {
    const signedIn = await mayChangeFactors(await sessionOf(request));
    const user = await deps.users.findById(signedIn.userId);
    if (!user) throw passkeyFlowGone('not_signed_in');
    return sendJson(reply, await passkeys.registrationOptions(user, boundToSession(signedIn)));
  });

  app.post<Body>(`${ACCOUNT_PATH}/passkeys/verify`, options, async (request, reply) => {
    const signedIn = await mayChangeFactors(await sessionOf(request));
    const outcome = await passkeys.register({ id: signedIn.userId }, boundToSession(signedIn), request.body.response, request.body.name ?? '');
    if (!outcome.ok) throw passkeyRefused(outcome.reason, { user_id: signedIn.userId, detail: outcome.detail });
    await accountEvent(deps, request, 'account.second_factor_added', signedIn.userId, { factor: 'passkey' });
    // Binding never raises this session's amr: it only keeps the account page open to it (account-session.ts).
    await factors.markBoundFactor(signedIn.idHash);
    return sendJson(reply, { redirect: `${ACCOUNT_PATH}?done=passkey_added` });
  });

  app.post(`${ACCOUNT_PATH}/passkeys/remove`, { config: { face: 'page' as const } }, async (request, reply) => {
    checkSameOrigin(request, deps.issuer);
    const session = await sessions.current(request);
    if (!session) return seeOther(reply, ACCOUNT_PATH);
    checkCsrfToken(formField(request.body, 'csrf'), session, { href: ACCOUNT_PATH, label: 'Back to your account' });
    const signedIn = await fullySignedIn(session);
    if (!signedIn) return seeOther(reply, ACCOUNT_PATH);
    // Any factor's removal needs a fresh proof (a stolen session cannot take the owner's factors away).
    if (!(await hasFreshProof(signedIn, deps))) {
      logRefusal(request, { reason: 'reauthentication_required', user_id: signedIn.userId }, 303);
      return seeOther(reply, `${ACCOUNT_PATH}?error=reauth`);
    }
    // Never the last way in (user-rules/sign-in-ways.ts): an account without a password or a linked provider
    // keeps its last passkey. Checked and removed holding the user's row, like an unlink.
    const outcome = await deps.removePasskey(
      { userId: signedIn.userId, credentialId: formField(request.body, 'credential') ?? '' },
      {
        type: 'account.second_factor_removed',
        actor: { kind: 'user', userId: signedIn.userId },
        traceId: request.id,
        details: { face: 'account', factor: 'passkey' },
      },
    );
    if (outcome === 'last_way_in') {
      logRefusal(request, { reason: 'last_way_in', user_id: signedIn.userId }, 303);
      return seeOther(reply, `${ACCOUNT_PATH}?error=passkey_last_way_in`);
    }
    return seeOther(reply, outcome === 'removed' ? `${ACCOUNT_PATH}?done=passkey_removed` : ACCOUNT_PATH);
  });
}

/** A factor change from a session whose proof is stale: the page asks to confirm it is them (reload shows the form). */
const reauthenticationRequired = (): ProblemError =>
  new ProblemError('forbidden', 'Confirm it is you first: reload the page and type your password or a code, then try again.', {
    log: { reason: 'reauthentication_required' },
  });
