// GET/POST /invitation?token=…: where an invitation's link lands (docs/email.md). GET shows the form when the
// link can still be used (it never redeems it: mail scanners follow links), POST redeems it and sets the
// password (invitations.ts). Written in the browser's language (Accept-Language; src/mail/catalogue.ts).
// The token travels in the query of the GET (the log records paths only, and the page sends no Referer) and
// in a hidden field of the POST. No CSRF token: the link's token is the only authority, and accepting
// creates no session.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { allowLogo, type Brand } from '../http/brand.js';
import { escapeHtml, pageSecurityHeaders } from '../http/html.js';
import { pageLayout } from '../http/page-layout.js';
import { catalogue, chooseLocale, fill, type Locale } from '../mail/catalogue.js';
import { MAX_PASSWORD, MIN_PASSWORD } from '../admin-services/users-service.js';
import { acceptInvitation, findUsableInvitation, INVITATION_PATH, type InvitationDeps } from './invitations.js';

/** Where the invitee signs in once the password is set: the account page is a sign-in form of its own. */
const SIGN_IN_PATH = '/account';

type Texts = ReturnType<typeof catalogue>['invitationPage'];

function form(brand: Brand, t: Texts, token: string, email: string, error?: string): string {
  return `<h1>${escapeHtml(t.title)}</h1>
<p>${escapeHtml(fill(t.intro, { brand: brand.name, email }))}</p>
${error ? `<p class="error" role="alert">${escapeHtml(error)}</p>` : ''}
<form method="post" action="${INVITATION_PATH}">
<input type="hidden" name="token" value="${escapeHtml(token)}">
<input type="text" name="username" value="${escapeHtml(email)}" autocomplete="username" hidden>
<label for="password">${escapeHtml(t.password)}</label>
<input type="password" id="password" name="password" autocomplete="new-password" minlength="${MIN_PASSWORD}" maxlength="${MAX_PASSWORD}" required aria-describedby="password-hint">
<p class="muted" id="password-hint">${escapeHtml(fill(t.passwordHint, { min: MIN_PASSWORD }))}</p>
<label for="confirm">${escapeHtml(t.confirm)}</label>
<input type="password" id="confirm" name="confirm" autocomplete="new-password" maxlength="${MAX_PASSWORD}" required>
<button type="submit">${escapeHtml(t.submit)}</button>
</form>`;
}

const message = (t: Texts, text: string, signIn: boolean) =>
  `<h1>${escapeHtml(t.title)}</h1>
<p${signIn ? '' : ' class="error" role="alert"'}>${escapeHtml(text)}</p>
${signIn ? `<p><a class="button" href="${SIGN_IN_PATH}">${escapeHtml(t.signIn)}</a></p>` : ''}`;

export function invitationPages(app: FastifyInstance, { brand, deps }: { brand: Brand; deps: Pick<InvitationDeps, 'store' | 'clock' | 'audit'> }): void {
  const page = (reply: FastifyReply, locale: Locale, status: number, body: string) => {
    reply.code(status).headers(pageSecurityHeaders).type('text/html; charset=utf-8');
    allowLogo(reply, brand);
    return pageLayout(brand, catalogue(locale).invitationPage.title, body, { lang: locale });
  };
  const localeOf = (request: FastifyRequest) => chooseLocale(request.headers['accept-language']);
  const config = { face: 'page' as const, limit: 'pages' as const };

  app.get<{ Querystring: { token?: unknown } }>(INVITATION_PATH, { config }, async (request, reply) => {
    const locale = localeOf(request);
    const t = catalogue(locale).invitationPage;
    const token = typeof request.query.token === 'string' ? request.query.token : '';
    const found = await findUsableInvitation(deps, token);
    if (!found) return page(reply, locale, 410, message(t, t.invalid, false));
    return page(reply, locale, 200, form(brand, t, token, found.invitation.email));
  });

  app.post<{ Body: Record<string, unknown> | undefined }>(INVITATION_PATH, { config }, async (request, reply) => {
    const locale = localeOf(request);
    const t = catalogue(locale).invitationPage;
    const field = (name: string) => (typeof request.body?.[name] === 'string' ? (request.body[name] as string) : '');
    const token = field('token');
    const password = field('password');
    const again = async (error: string) => {
      const found = await findUsableInvitation(deps, token);
      return found ? page(reply, locale, 422, form(brand, t, token, found.invitation.email, error)) : page(reply, locale, 410, message(t, t.invalid, false));
    };
    if (password !== field('confirm')) return again(t.mismatch);
    if (password.length < MIN_PASSWORD) return again(fill(t.tooShort, { min: MIN_PASSWORD }));
    if (password.length > MAX_PASSWORD) return again(fill(t.tooLong, { max: MAX_PASSWORD }));
    const outcome = await acceptInvitation(deps, token, password);
    if (outcome.ok) return page(reply, locale, 200, message(t, t.done, true));
    if (outcome.reason === 'password') return again(outcome.message);
    return page(reply, locale, 410, message(t, t.invalid, false));
  });
}
