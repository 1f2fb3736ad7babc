// GET/POST /password/forgot and /password/reset (password-reset.ts; docs/email.md).
// - /password/forgot answers every well-formed address with the same page, status and headers; it draws on
//   the per-address mail budget (a 429 names no account) and never waits for anything account-dependent.
// - /password/reset?token=…: GET shows the form while the link is usable and never uses it up (mail
//   scanners follow links); POST sets the password. The page then lists the account's second factors and
//   leads to sign-in, which still asks for one: a reset proves the mailbox, not the second factor, so
//   removing a factor the owner does not recognise is done signed in, on /account (docs/security/account-factors.md).
import type { FastifyInstance } from 'fastify';
import { checkSameOrigin } from '../interaction/csrf.js';
import { escapeHtml } from '../http/html.js';
import { MAIL_ADDRESS } from '../config/mail-settings.js';
import { MAX_PASSWORD, MIN_PASSWORD } from '../admin-services/users-service.js';
import { mailMode } from '../mail/mail-mode.js';
import { interactionIdOf, type SelfServiceDeps } from './deps.js';
import { chargeMailAddress } from './mail-budgets.js';
import type { SecurityNotices } from './notices.js';
import { errorLine, field, hidden, linkButton, pageRoute, sendSelfServicePage, signInPath, type Form } from './page.js';
import { FORGOT_PATH, findUsableReset, requestPasswordReset, RESET_PATH, resetPassword } from './password-reset.js';

export interface AccountFactors {
  totp: boolean;
  recoveryCodes: number;
  passkeys: { name: string; createdAt: Date }[];
}

export type PasswordResetPageDeps = SelfServiceDeps & { notices: SecurityNotices; factorsOf(userId: string): Promise<AccountFactors> };

const TITLE = 'Forgot your password?';

function forgotForm(interaction: string | undefined, email = '', error?: string): string {
  return `<h1>${TITLE}</h1>
<p>Type the e-mail address of your account. We will send it a link to choose a new password.</p>
${errorLine(error)}
<form method="post" action="${FORGOT_PATH}">
${hidden('interaction', interaction)}
<label for="email">E-mail address</label>
<input id="email" name="email" type="email" autocomplete="email" maxlength="254" required value="${escapeHtml(email)}" autofocus>
<button type="submit">Send the link</button>
</form>
<p><a href="${escapeHtml(signInPath(interaction))}">Back to sign-in</a></p>`;
}

function resetForm(token: string, interaction: string | undefined, username: string, error?: string): string {
  return `<h1>Choose a new password</h1>
<p>For the account <strong>${escapeHtml(username)}</strong>.</p>
${errorLine(error)}
<form method="post" action="${RESET_PATH}">
${hidden('token', token)}${hidden('interaction', interaction)}
<input type="text" name="username" value="${escapeHtml(username)}" autocomplete="username" hidden>
<label for="password">New password</label>
<input id="password" name="password" type="password" autocomplete="new-password" minlength="${MIN_PASSWORD}" maxlength="${MAX_PASSWORD}" required aria-describedby="password-hint">
<p class="muted" id="password-hint">At least ${MIN_PASSWORD} characters.</p>
<label for="confirm">Repeat the password</label>
<input id="confirm" name="confirm" type="password" autocomplete="new-password" maxlength="${MAX_PASSWORD}" required>
<button type="submit">Set the new password</button>
</form>`;
}

const INVALID = `<h1>This link does not work any more</h1>
<p class="error" role="alert">It was used, has expired, or the password or e-mail address changed since it was sent.</p>
<p><a href="${FORGOT_PATH}">Ask for a new link</a></p>`;

function factorList(factors: AccountFactors): string {
  const items = [
    ...(factors.totp ? ['<li>An authenticator app (one-time codes)</li>'] : []),
    ...(factors.recoveryCodes > 0 ? [`<li>${factors.recoveryCodes} recovery codes</li>`] : []),
    ...factors.passkeys.map((p) => `<li>Passkey <strong>${escapeHtml(p.name)}</strong>, added ${escapeHtml(p.createdAt.toISOString().slice(0, 10))}</li>`),
  ];
  if (items.length === 0) return '<p class="muted">Your account has no second factor.</p>';
  return `<p>Your account still needs one of its second factors to sign in:</p>
<ul id="factor-review">${items.join('')}</ul>
<p>If you do not recognise one of them, sign in and remove it on your account page.</p>`;
}

export function passwordResetPages(app: FastifyInstance, deps: PasswordResetPageDeps): void {
  const off = () => mailMode(deps.config) === 'off';
  const notAvailable = `<h1>${TITLE}</h1><p>Resetting a password by e-mail is not available here. Ask an administrator.</p>`;

  app.get<{ Querystring: Record<string, unknown> }>(FORGOT_PATH, pageRoute, async (request, reply) => {
    if (off()) return sendSelfServicePage(reply, deps.brand, 404, TITLE, notAvailable);
    return sendSelfServicePage(reply, deps.brand, 200, TITLE, forgotForm(interactionIdOf(request.query.interaction)));
  });

  app.post<{ Body: Form }>(FORGOT_PATH, pageRoute, async (request, reply) => {
    checkSameOrigin(request, deps.config.ISSUER);
    if (off()) return sendSelfServicePage(reply, deps.brand, 404, TITLE, notAvailable);
    await chargeMailAddress(deps.rateLimits, request, reply);
    const interaction = interactionIdOf(field(request.body, 'interaction'));
    const email = field(request.body, 'email').trim();
    if (email.length > 254 || !MAIL_ADDRESS.test(email))
      return sendSelfServicePage(reply, deps.brand, 422, TITLE, forgotForm(interaction, email.slice(0, 254), 'Type an e-mail address.'));
    await requestPasswordReset(deps, { email, acceptLanguage: request.headers['accept-language'], interaction });
    // The same page for every address: nothing in it depends on whether an account has it.
    const minutes = Math.round(deps.config.PASSWORD_RESET_TTL / 60);
    return sendSelfServicePage(
      reply,
      deps.brand,
      200,
      'Check your e-mail',
      `<h1>Check your e-mail</h1>
<p role="status">If an account has the address <strong>${escapeHtml(email)}</strong>, we sent it a link to choose a new password. The link works once, for ${minutes} minutes.</p>
<p class="muted">Nothing there? Check the spam folder, or ask again in a few minutes.</p>
<p><a href="${escapeHtml(signInPath(interaction))}">Back to sign-in</a></p>`,
    );
  });

  app.get<{ Querystring: Record<string, unknown> }>(RESET_PATH, pageRoute, async (request, reply) => {
    const token = typeof request.query.token === 'string' ? request.query.token : '';
    const user = await findUsableReset(deps, token);
    if (!user) return sendSelfServicePage(reply, deps.brand, 410, 'Link expired', INVALID);
    return sendSelfServicePage(reply, deps.brand, 200, 'Choose a new password', resetForm(token, interactionIdOf(request.query.interaction), user.username));
  });

  app.post<{ Body: Form }>(RESET_PATH, pageRoute, async (request, reply) => {
    checkSameOrigin(request, deps.config.ISSUER);
    const token = field(request.body, 'token');
    const password = field(request.body, 'password');
    const interaction = interactionIdOf(field(request.body, 'interaction'));
    const again = async (error: string) => {
      const user = await findUsableReset(deps, token);
      return user
        ? sendSelfServicePage(reply, deps.brand, 422, 'Choose a new password', resetForm(token, interaction, user.username, error))
        : sendSelfServicePage(reply, deps.brand, 410, 'Link expired', INVALID);
    };
    if (password !== field(request.body, 'confirm')) return again('The two passwords differ.');
    const outcome = await resetPassword(deps, { token, password, acceptLanguage: request.headers['accept-language'], traceId: request.id });
    if (!outcome.ok)
      return outcome.reason === 'password' ? again(`The password ${outcome.message}.`) : sendSelfServicePage(reply, deps.brand, 410, 'Link expired', INVALID);
    const factors = await deps.factorsOf(outcome.user.id);
    return sendSelfServicePage(
      reply,
      deps.brand,
      200,
      'Password changed',
      `<h1>Your password is changed</h1>
<p class="notice" role="status">Every session of <strong>${escapeHtml(outcome.user.username)}</strong> was signed out and apps must sign in again.</p>
${factorList(factors)}
${linkButton(signInPath(interaction), 'Sign in')}`,
    );
  });
}
