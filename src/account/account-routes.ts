// /account: the signed-in user's own page (same browser-session cookie as the login pages). Without a
// signed-in session it is a sign-in form of its own (password, then the second factor when the account
// has one). Every POST checks origin and the session's CSRF token and answers 303 (or, for new recovery
// codes, the one page that shows them). A session of an account with a second factor that did not use it
// (it signed in before the factor was added) is stepped up before the page shows anything.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Clock } from '../clock.js';
import type { Brand } from '../http/brand.js';
import { logRefusal } from '../http/refusal-log.js';
import { isLoggedIn } from '../interaction/complete.js';
import { checkCsrfToken, checkSameOrigin, formField } from '../interaction/csrf.js';
import { seeOther, sendPage } from '../interaction/interaction-context.js';
import { renderSecondFactorPage } from '../interaction/mfa/second-factor-page.js';
import { ACCOUNT_FLOW, afterFirstFactor, type SecondFactors } from '../interaction/mfa/second-factors.js';
import { renderLoginPage } from '../interaction/pages/login-page.js';
import type { BrowserSessions } from '../interaction/session/browser-sessions.js';
import type { AccountRepository } from '../storage/repositories/account-repository.js';
import type { AuditSink } from '../audit/audit-sink.js';
import type { BrowserSession } from '../storage/repositories/browser-sessions-repository.js';
import type { Store } from '../storage/store.js';
import { accountEvent } from './account-events.js';
import { currentPreSession, ensurePreSession } from './pre-session.js';
import type { User, UsersRepository } from '../storage/repositories/users-repository.js';
import { fullySignedIn as accountSession, hasFreshProof, type SignedIn } from './account-session.js';
import { ACCOUNT_ERRORS, ACCOUNT_NOTICES, REAUTH_ERRORS, reauthMessage, renderAccountPage, renderAccountRecoveryCodesPage } from './account-page.js';
import { accountPasskeyRoutes } from './account-passkeys.js';
import type { PasskeyCeremonies } from '../interaction/passkeys/passkeys.js';
import { passkeyAction, secondFactorOffer, withPasskeyScripts } from '../interaction/passkeys/passkey-fragments.js';
import { pageSecurityHeaders } from '../http/html.js';
import { codeOf } from '../interaction/sign-in/one-time-code-methods.js';
import type { SignInMethods } from '../interaction/sign-in/sign-in-methods.js';
import type { SignInPipeline } from '../interaction/sign-in/sign-in-pipeline.js';
import type { LoginLinks } from '../interaction/flow-deps.js';
import type { SecurityNotices } from '../self-service/notices.js';
import type { EmailChangeRequest } from '../self-service/email-change.js';
import { chargeMailAddress } from '../self-service/mail-budgets.js';
import type { RateLimits } from '../http/rate-limit.js';
import type { FederationFlowDeps } from '../interaction/federation/federation-flow-deps.js';
import type { RemovePasskey, UnlinkProvider } from '../user-rules/unlink-provider.js';
import { accountIdentityRoutes, identitiesSection, linkedProviders, withLinkTargets } from './account-identities.js';
import { accountFederationRoutes, accountSignInFederation } from './account-federation.js';
import { accountDelegationRoutes, delegationsSection, MAX_LISTED_DELEGATIONS } from './account-delegations.js';
import type { DelegationsRepository } from '../storage/repositories/delegations-repository.js';

export const ACCOUNT_PATH = '/account';

export type PasswordChangeOutcome = 'changed' | 'wrong_current_password';

export interface AccountDeps {
  issuer: string;
  brand: Brand;
  clock: Clock;
  sessions: BrowserSessions;
  users: Pick<UsersRepository, 'findByUsername' | 'findById'>;
  /** Sign-in: the same methods and pipeline as the authorization flow's pages (src/interaction/sign-in/). */
  methods: SignInMethods;
  signIn: SignInPipeline;
  secondFactors: SecondFactors;
  account: AccountRepository;
  /** RFC 8693 delegations made in the user's name: listed and revoked (account-delegations.ts). */
  delegations: Pick<DelegationsRepository, 'listLive'>;
  /** Security events: an app's access revoked by its user (docs/audit-log.md). */
  audit: AuditSink;
  /** src/user-rules/password-change.ts: ends the user's other sessions and revokes their refresh tokens. */
  changePassword(
    user: User,
    currentPassword: string,
    newPassword: string,
    keepSession: string,
    onChanged?: (tx: Store) => Promise<void>,
  ): Promise<PasswordChangeOutcome>;
  /** Passkeys: the account page's list, registration and removal, and passkey sign-in (account-passkeys.ts). */
  passkeys: PasskeyCeremonies;
  /** Upstream providers: the account's links, linking one (account-identities.ts). */
  federation: FederationFlowDeps;
  /** src/user-rules/unlink-provider.ts: never the last way in. */
  unlinkProvider: UnlinkProvider;
  removePasskey: RemovePasskey;
  /** Seconds a proof of the account stays fresh for factor changes (REAUTH_MAX_AGE, account-session.ts). */
  reauthMaxAge: number;
  /** Where account events are written with their security notices (account-events.ts). */
  store: Store;
  notices?: SecurityNotices | undefined;
  /** "Forgot your password?" under the sign-in form (src/self-service/). */
  selfServiceLinks?: ((interaction: string | undefined) => LoginLinks) | undefined;
  /** The e-mail change: the link to the new address (src/self-service/email-change.ts); absent when e-mail is off. */
  requestEmailChange?: ((user: User, email: string, request: FastifyRequest) => Promise<EmailChangeRequest>) | undefined;
  /** The per-address budget of pages that send e-mail (src/self-service/mail-budgets.ts). */
  rateLimits: Pick<RateLimits, 'hit'>;
}

/** Every /account route draws on the per-address page budget (src/http/anonymous-limit.ts). */
const options = { config: { face: 'page' as const, limit: 'pages' as const } };
const query = (request: FastifyRequest, name: string) => {
  const value = (request.query as Record<string, unknown>)[name];
  return typeof value === 'string' ? value : undefined;
};
const back = { href: ACCOUNT_PATH, label: 'Back to your account' };

export function accountRoutes(app: FastifyInstance, deps: AccountDeps): void {
  const { sessions, secondFactors: factors } = deps;

  const fullySignedIn = (session: BrowserSession | undefined) => accountSession(session, factors);

  /** Origin, session and CSRF token of a POST; the fully signed-in session, or undefined. */
  async function postSession(request: FastifyRequest): Promise<{ session: BrowserSession | undefined; signedIn: SignedIn | undefined }> {
    checkSameOrigin(request, deps.issuer);
    const session = await sessions.current(request);
    if (!session) return { session, signedIn: undefined };
    checkCsrfToken(formField(request.body, 'csrf'), session, back);
    return { session, signedIn: await fullySignedIn(session) };
  }

  app.get(ACCOUNT_PATH, options, async (request, reply) => {
    const failed = query(request, 'failed') === '1';
    const existing = await sessions.current(request);
    if (!existing) {
      // No browser session: the sign-in form, with no server-side state behind it (pre-session.ts).
      const { csrfToken } = ensurePreSession(request, reply, deps.issuer);
      const upstream = await accountSignInFederation(deps, csrfToken);
      const login = renderLoginPage({
        brand: deps.brand,
        action: `${ACCOUNT_PATH}/login`,
        csrfToken,
        clientName: 'your account',
        failed,
        passkey: passkeyAction(`${ACCOUNT_PATH}/passkey`, csrfToken),
        links: deps.selfServiceLinks?.(undefined),
        federation: upstream.federation,
      });
      return sendPage(reply, login, 200, upstream.headers(withPasskeyScripts(pageSecurityHeaders)));
    }
    const session = existing;
    const signedIn = await fullySignedIn(session);
    if (!signedIn) {
      // Step-up of a password-only session of an account that has a second factor now.
      if (isLoggedIn(session)) await factors.awaitSecondFactor(session.idHash, session.userId, ACCOUNT_FLOW);
      const passkey = passkeyAction(`${ACCOUNT_PATH}/passkey`, session.csrfToken);
      const pendingUser = await factors.pendingUser(session.idHash, ACCOUNT_FLOW);
      if (pendingUser !== undefined) {
        const offer = await secondFactorOffer(pendingUser, factors, passkey);
        const page = renderSecondFactorPage({
          brand: deps.brand,
          action: `${ACCOUNT_PATH}/second-factor`,
          csrfToken: session.csrfToken,
          continueTo: 'your account',
          failed,
          offer,
        });
        return sendPage(reply, page, 200, offer.passkey ? withPasskeyScripts(pageSecurityHeaders) : pageSecurityHeaders);
      }
      const upstream = await accountSignInFederation(deps, session.csrfToken);
      const login = renderLoginPage({
        brand: deps.brand,
        action: `${ACCOUNT_PATH}/login`,
        csrfToken: session.csrfToken,
        clientName: 'your account',
        failed,
        passkey,
        federation: upstream.federation,
      });
      return sendPage(reply, login, 200, upstream.headers(withPasskeyScripts(pageSecurityHeaders)));
    }
    const user = await deps.users.findById(signedIn.userId);
    if (!user) {
      await sessions.end(reply, signedIn);
      return seeOther(reply, ACCOUNT_PATH);
    }
    const [status, enrollment, list, apps, passkeys, providers, delegations] = await Promise.all([
      factors.status(user.id),
      factors.pendingTotp(user),
      deps.account.sessions(user.id),
      deps.account.apps(user.id),
      deps.passkeys.list(user.id),
      linkedProviders(user.id, deps),
      deps.delegations.listLive(user.id, MAX_LISTED_DELEGATIONS),
    ]);
    const notice = ACCOUNT_NOTICES[query(request, 'done') ?? ''];
    const code = query(request, 'error') ?? '';
    const reauth = REAUTH_ERRORS.has(code);
    const error = reauth ? reauthMessage(code, status) : ACCOUNT_ERRORS[code];
    const reviewFactors = query(request, 'done') === 'password';
    return sendPage(
      reply,
      renderAccountPage({
        brand: deps.brand,
        csrfToken: signedIn.csrfToken,
        username: user.username,
        email: deps.requestEmailChange ? { address: user.email, verified: user.email_verified } : undefined,
        currentSession: signedIn.idHash,
        factors: status,
        enrollment,
        sessions: list,
        apps,
        delegations: delegationsSection(delegations, signedIn.csrfToken),
        passkeys,
        providers: identitiesSection(providers, signedIn.csrfToken),
        notice,
        error,
        reauth,
        reviewFactors,
      }),
      200,
      withLinkTargets(withPasskeyScripts(pageSecurityHeaders), providers),
    );
  });

  app.post(`${ACCOUNT_PATH}/login`, options, async (request, reply) => {
    checkSameOrigin(request, deps.issuer);
    // The browser's session when it has one (a step-up, a second try), else its pre-session token.
    const session = await sessions.current(request);
    const form = session ?? currentPreSession(request, deps.issuer);
    if (!form) return seeOther(reply, ACCOUNT_PATH);
    checkCsrfToken(formField(request.body, 'csrf'), form, back);
    const username = formField(request.body, 'username') ?? '';
    const password = formField(request.body, 'password') ?? '';
    const context = { request, face: 'account', method: 'password', answer: 'form' } as const;
    const outcome = await deps.signIn.attempt(context, () => deps.methods.password({ username, password, ip: request.ip }));
    if (!outcome.ok) return seeOther(reply, `${ACCOUNT_PATH}?failed=1`);
    if (await factors.required(outcome.userId)) {
      // The first server-side state of this browser: only after a correct password.
      const waiting = session ?? (await sessions.ensure(request, reply));
      await factors.awaitSecondFactor(waiting.idHash, outcome.userId, ACCOUNT_FLOW);
      return seeOther(reply, ACCOUNT_PATH);
    }
    await deps.signIn.completeSignIn(context, reply, session, outcome);
    return seeOther(reply, ACCOUNT_PATH);
  });

  app.post(`${ACCOUNT_PATH}/second-factor`, options, async (request, reply) => {
    const { session } = await postSession(request);
    if (!session) return seeOther(reply, ACCOUNT_PATH);
    const userId = await factors.pendingUser(session.idHash, ACCOUNT_FLOW);
    if (userId === undefined) return seeOther(reply, ACCOUNT_PATH);
    const { method, code } = codeOf({ otp: formField(request.body, 'otp'), recoveryCode: formField(request.body, 'recovery_code') });
    const context = { request, face: 'account', method, userId, answer: 'form' } as const;
    const outcome = await deps.signIn.attempt(context, () => deps.methods[method]({ userId, code, ip: request.ip }));
    if (!outcome.ok) return seeOther(reply, `${ACCOUNT_PATH}?failed=1`);
    // The first factor waited with it: a provider's sign-in makes the final amr name `fed`, not `pwd`.
    const pending = await factors.consumePendingSignIn(session.idHash, ACCOUNT_FLOW);
    if (pending?.userId !== userId) return seeOther(reply, ACCOUNT_PATH);
    await deps.signIn.completeSignIn(context, reply, session, {
      userId,
      amr: afterFirstFactor(outcome.amr, pending.firstFactor),
      upstreamTokens: pending.upstreamTokens,
    });
    return seeOther(reply, ACCOUNT_PATH);
  });

  /**
   * The POSTs of a signed-in user: each gets the session and the user, or goes back to /account. A change
   * of second factors (`needs: 'fresh proof'`) first asks a session whose proof is stale to confirm it is them.
   */
  const signedInPost = (
    path: string,
    act: (request: FastifyRequest, reply: FastifyReply, session: SignedIn, user: User) => Promise<FastifyReply>,
    needs?: 'fresh proof' | 'fresh proof to link',
  ) =>
    app.post(`${ACCOUNT_PATH}${path}`, options, async (request, reply) => {
      const { signedIn } = await postSession(request);
      const user = signedIn && (await deps.users.findById(signedIn.userId));
      if (!signedIn || !user) return seeOther(reply, ACCOUNT_PATH);
      if (needs !== undefined && !(await hasFreshProof(signedIn, deps))) {
        logRefusal(request, { reason: 'reauthentication_required', user_id: user.id }, 303);
        return seeOther(reply, `${ACCOUNT_PATH}?error=${needs === 'fresh proof' ? 'reauth' : 'reauth_link'}`);
      }
      return act(request, reply, signedIn, user);
    });

  // Re-authentication: the current password, or a code of the account's authenticator app (a proof like a
  // sign-in's, through the same methods and budgets), or one of its passkeys (account-passkeys.ts). It makes
  // the session's proof fresh; nothing else.
  signedInPost('/reauth', async (request, reply, session, user) => {
    const password = formField(request.body, 'password') ?? '';
    const { method, code } =
      password !== ''
        ? { method: 'password' as const, code: '' }
        : codeOf({ otp: formField(request.body, 'otp'), recoveryCode: formField(request.body, 'recovery_code') });
    const context = { request, face: 'account', method, userId: user.id, answer: 'form' } as const;
    const outcome = await deps.signIn.attempt(context, () =>
      method === 'password'
        ? deps.methods.password({ username: user.username, password, ip: request.ip })
        : deps.methods[method]({ userId: user.id, code, ip: request.ip }),
    );
    if (!outcome.ok || outcome.userId !== user.id) return seeOther(reply, `${ACCOUNT_PATH}?error=reauth_failed`);
    await factors.recordProof(session.idHash);
    return seeOther(reply, `${ACCOUNT_PATH}?done=reauth`);
  });

  signedInPost('/password', async (request, reply, session, user) => {
    const current = formField(request.body, 'current_password') ?? '';
    const next = formField(request.body, 'new_password') ?? '';
    if (next.length < 8 || next.length > 1024) return seeOther(reply, `${ACCOUNT_PATH}?error=new_password`);
    // The current password is a proof like a sign-in's: a wrong one is login.failed, a spent budget login.locked_out.
    const context = { request, face: 'account', method: 'password', userId: user.id, answer: 'form' } as const;
    const outcome = await deps.signIn.attempt(context, async () => {
      const changed = await deps.changePassword(user, current, next, session.idHash, (tx) =>
        accountEvent(deps, request, 'account.password_changed', user.id, {}, tx),
      );
      return changed === 'changed' ? { ok: true, userId: user.id, amr: ['pwd'] } : { ok: false, reason: changed, userId: user.id };
    });
    if (!outcome.ok) return seeOther(reply, `${ACCOUNT_PATH}?error=current_password`);
    // The current password was just proven: the page now lists the account's factors, and removing one it
    // does not recognise needs no further proof (docs/security/account-factors.md).
    await factors.recordProof(session.idHash);
    return seeOther(reply, `${ACCOUNT_PATH}?done=password`);
  });

  // A new e-mail address (src/self-service/email-change.ts): verified before it replaces the old one, and
  // asked for only with a fresh proof — whoever changes the address controls every link sent to it.
  signedInPost(
    '/email',
    async (request, reply, _session, user) => {
      if (!deps.requestEmailChange) return seeOther(reply, `${ACCOUNT_PATH}?error=email_off`);
      await chargeMailAddress(deps.rateLimits, request, reply);
      const outcome = await deps.requestEmailChange(user, formField(request.body, 'email') ?? '', request);
      return seeOther(reply, outcome === 'sent' ? `${ACCOUNT_PATH}?done=email_sent` : `${ACCOUNT_PATH}?error=email_${outcome}`);
    },
    'fresh proof',
  );

  signedInPost(
    '/totp',
    async (_request, reply, _session, user) => {
      const started = await factors.beginTotp(user);
      return seeOther(reply, started ? ACCOUNT_PATH : `${ACCOUNT_PATH}?error=totp_active`);
    },
    'fresh proof',
  );

  signedInPost(
    '/totp/confirm',
    async (request, reply, session, user) => {
      const codes = await factors.confirmTotp(user.id, formField(request.body, 'otp') ?? '');
      if (!codes) {
        logRefusal(request, { reason: 'wrong_otp', user_id: user.id }, 303);
        return seeOther(reply, `${ACCOUNT_PATH}?error=totp_code`);
      }
      await accountEvent(deps, request, 'account.second_factor_added', user.id, { factor: 'totp' });
      // Binding never raises this session's amr (a stolen password-only session must not become an MFA one):
      // it only keeps the account page open to it.
      await factors.markBoundFactor(session.idHash);
      return sendPage(reply, renderAccountRecoveryCodesPage({ brand: deps.brand, codes }));
    },
    'fresh proof',
  );

  signedInPost(
    '/totp/remove',
    async (request, reply, _session, user) => {
      await factors.removeAll(user.id);
      await accountEvent(deps, request, 'account.second_factor_removed', user.id, { factor: 'totp' });
      return seeOther(reply, `${ACCOUNT_PATH}?done=totp_removed`);
    },
    'fresh proof',
  );

  signedInPost(
    '/recovery-codes',
    async (request, reply, _session, user) => {
      if ((await factors.status(user.id)).totp !== 'active') return seeOther(reply, ACCOUNT_PATH);
      const codes = await factors.regenerateRecoveryCodes(user.id);
      await accountEvent(deps, request, 'account.recovery_codes_regenerated', user.id);
      return sendPage(reply, renderAccountRecoveryCodesPage({ brand: deps.brand, codes }));
    },
    'fresh proof',
  );

  signedInPost('/sessions/end', async (request, reply, session, user) => {
    const target = formField(request.body, 'session') ?? '';
    if (target === session.idHash) {
      await sessions.end(reply, session);
      return seeOther(reply, ACCOUNT_PATH);
    }
    await deps.account.endSession(user.id, target);
    return seeOther(reply, `${ACCOUNT_PATH}?done=session_ended`);
  });

  signedInPost('/apps/revoke', async (request, reply, _session, user) => {
    const clientId = formField(request.body, 'client_id') ?? '';
    if (await deps.account.revokeApp(user.id, clientId)) {
      await deps.audit.emit({ type: 'consent.revoked', actor: { kind: 'user', userId: user.id, clientId }, subject: user.id, clientId, traceId: request.id });
    }
    return seeOther(reply, `${ACCOUNT_PATH}?done=app_revoked`);
  });

  accountPasskeyRoutes(app, deps);
  accountFederationRoutes(app, deps, options);
  accountIdentityRoutes(signedInPost, deps);
  accountDelegationRoutes(signedInPost, deps);

  app.post(`${ACCOUNT_PATH}/logout`, options, async (request, reply) => {
    const { session } = await postSession(request);
    await sessions.end(reply, session);
    return seeOther(reply, ACCOUNT_PATH);
  });
}
