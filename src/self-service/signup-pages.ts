// GET/POST /signup and /signup/verify (signup.ts; docs/email.md). With SIGNUP=off, or without e-mail,
// both answer 404. /signup answers every valid form with the same page, status and headers (an address
// that has an account gets a notice by mail instead of a link); /signup/verify?token=… shows a button
// (GET never uses the link: mail scanners follow links) and POST creates the account, then leads back to
// the authorization request the sign-up began in, where the new user signs in.
import type { FastifyInstance } from 'fastify';
import { checkSameOrigin } from '../interaction/csrf.js';
import { escapeHtml } from '../http/html.js';
import { MAX_PASSWORD, MIN_PASSWORD } from '../admin-services/users-service.js';
import { interactionIdOf, type SelfServiceDeps } from './deps.js';
import { chargeMailAddress } from './mail-budgets.js';
import { errorLine, field, hidden, linkButton, pageRoute, sendSelfServicePage, signInPath, type Form } from './page.js';
import { checkSignup, completeSignup, findUsableSignup, requestSignup, SIGNUP_PATH, SIGNUP_VERIFY_PATH, signupOpen } from './signup.js';

const TITLE = 'Create an account';

function signupForm(input: { interaction: string | undefined; email?: string; name?: string; error?: string; domains: string[] }): string {
  return `<h1>${TITLE}</h1>
${input.domains.length > 0 ? `<p class="muted">For addresses at ${escapeHtml(input.domains.join(', '))}.</p>` : ''}
${errorLine(input.error)}
<form method="post" action="${SIGNUP_PATH}">
${hidden('interaction', input.interaction)}
<label for="email">E-mail address</label>
<input id="email" name="email" type="email" autocomplete="username" maxlength="64" required value="${escapeHtml(input.email ?? '')}" autofocus>
<label for="name">Name</label>
<input id="name" name="name" type="text" autocomplete="name" maxlength="200" value="${escapeHtml(input.name ?? '')}">
<label for="password">Password</label>
<input id="password" name="password" type="password" autocomplete="new-password" minlength="${MIN_PASSWORD}" maxlength="${MAX_PASSWORD}" required aria-describedby="password-hint">
<p class="muted" id="password-hint">At least ${MIN_PASSWORD} characters.</p>
<label for="confirm">Repeat the password</label>
<input id="confirm" name="confirm" type="password" autocomplete="new-password" maxlength="${MAX_PASSWORD}" required>
<button type="submit">Create the account</button>
</form>
<p>Already have an account? <a href="${escapeHtml(signInPath(input.interaction))}">Sign in</a></p>`;
}

const INVALID = `<h1>This link does not work any more</h1>
<p class="error" role="alert">It was used or has expired. Sign up again to get a new one.</p>
<p><a href="${SIGNUP_PATH}">Create an account</a></p>`;

export function signupPages(app: FastifyInstance, deps: SelfServiceDeps): void {
  const closed = (reply: Parameters<typeof sendSelfServicePage>[0]) =>
    sendSelfServicePage(reply, deps.brand, 404, TITLE, `<h1>${TITLE}</h1><p>Creating an account is not open here. Ask an administrator for an invitation.</p>`);

  app.get<{ Querystring: Record<string, unknown> }>(SIGNUP_PATH, pageRoute, async (request, reply) => {
    if (!signupOpen(deps)) return closed(reply);
    return sendSelfServicePage(
      reply,
      deps.brand,
      200,
      TITLE,
      signupForm({ interaction: interactionIdOf(request.query.interaction), domains: deps.config.SIGNUP_DOMAINS }),
    );
  });

  app.post<{ Body: Form }>(SIGNUP_PATH, pageRoute, async (request, reply) => {
    checkSameOrigin(request, deps.config.ISSUER);
    if (!signupOpen(deps)) return closed(reply);
    await chargeMailAddress(deps.rateLimits, request, reply);
    const interaction = interactionIdOf(field(request.body, 'interaction'));
    const input = { email: field(request.body, 'email').trim(), name: field(request.body, 'name'), password: field(request.body, 'password') };
    const again = (error: string) =>
      sendSelfServicePage(
        reply,
        deps.brand,
        422,
        TITLE,
        signupForm({ interaction, email: input.email.slice(0, 64), name: input.name.slice(0, 200), error, domains: deps.config.SIGNUP_DOMAINS }),
      );
    const check = checkSignup(deps, input);
    if (!check.ok) return again(check.message);
    if (input.password !== field(request.body, 'confirm')) return again('The two passwords differ.');
    await requestSignup(deps, { ...input, acceptLanguage: request.headers['accept-language'], interaction });
    const hours = Math.round(deps.config.EMAIL_VERIFICATION_TTL / 3600);
    // The same page for every address: one that already has an account is told so by mail, not here.
    return sendSelfServicePage(
      reply,
      deps.brand,
      200,
      'Check your e-mail',
      `<h1>Check your e-mail</h1>
<p role="status">We sent a link to <strong>${escapeHtml(input.email)}</strong>. Open it within ${hours} hours to finish creating your account.</p>
<p class="muted">Nothing there? Check the spam folder. If the address already has an account, the message says so.</p>`,
    );
  });

  app.get<{ Querystring: Record<string, unknown> }>(SIGNUP_VERIFY_PATH, pageRoute, async (request, reply) => {
    const token = typeof request.query.token === 'string' ? request.query.token : '';
    const found = await findUsableSignup(deps, token);
    if (!found) return sendSelfServicePage(reply, deps.brand, 410, 'Link expired', INVALID);
    return sendSelfServicePage(
      reply,
      deps.brand,
      200,
      'Confirm your e-mail address',
      `<h1>Confirm your e-mail address</h1>
<p>Create the account <strong>${escapeHtml(found.email)}</strong>.</p>
<form method="post" action="${SIGNUP_VERIFY_PATH}">${hidden('token', token)}
<button type="submit">Confirm and create the account</button>
</form>`,
    );
  });

  app.post<{ Body: Form }>(SIGNUP_VERIFY_PATH, pageRoute, async (request, reply) => {
    checkSameOrigin(request, deps.config.ISSUER);
    const outcome = await completeSignup(deps, field(request.body, 'token'), request.id);
    if (!outcome.ok && outcome.reason === 'invalid-link') return sendSelfServicePage(reply, deps.brand, 410, 'Link expired', INVALID);
    if (!outcome.ok) {
      return sendSelfServicePage(
        reply,
        deps.brand,
        409,
        'Account exists',
        `<h1>This address already has an account</h1>
<p>Sign in with it, or reset its password if you forgot it.</p>${linkButton(signInPath(outcome.interaction), 'Sign in')}`,
      );
    }
    return sendSelfServicePage(
      reply,
      deps.brand,
      200,
      'Account created',
      `<h1>Your account is ready</h1>
<p class="notice" role="status">The address <strong>${escapeHtml(outcome.user.username)}</strong> is confirmed. Sign in with it and your password${outcome.interaction ? ' to continue' : ''}.</p>
${linkButton(signInPath(outcome.interaction), outcome.interaction ? 'Continue' : 'Sign in')}`,
    );
  });
}
