// What the federated sign-in shows: the "Continue with NAME" buttons on the login page, the confirmation
// page where the owner of a local account proves it before a link is made, and the page for each way the
// upstream leg can fail (the cause goes to the log, never to the page).
import type { Brand } from '../../http/brand.js';
import { PageError } from '../../http/errors.js';
import { escapeHtml } from '../../http/html.js';
import type { FederationOutcome } from '../sign-in/federation-method.js';
import { hiddenInput, layout } from '../pages/layout.js';
import { PASSKEY_SCRIPTS } from '../passkeys/passkey-assets.js';
import { passkeySignInSection, type PasskeyAction } from '../passkeys/passkey-fragments.js';

/** The login page's section: one button per offered provider, in one form posting the provider chosen. */
export function continueWithSection(input: { action: string; csrfToken: string; providers: readonly { slug: string; name: string }[] }): string {
  if (input.providers.length === 0) return '';
  const buttons = input.providers
    .map((p) => `<button type="submit" class="secondary" name="provider" value="${escapeHtml(p.slug)}">Continue with ${escapeHtml(p.name)}</button>`)
    .join('\n');
  return `<section aria-label="Other ways to sign in">
<form method="post" action="${escapeHtml(input.action)}">
${hiddenInput('csrf', input.csrfToken)}
${buttons}
</form>
</section>`;
}

const LINK_FAILED_MESSAGE = 'That was not accepted.';
const LINK_CODES_PAUSED_MESSAGE =
  'Too many wrong codes have been typed here to link this account. Use your password or a passkey, or sign in as usual and link the provider from your account page.';

/**
 * The proofs offered: the account's password, a code of its authenticator app, one of its passkeys — each
 * only when the account has it. `failed`: the last proof was refused, or `codes` when codes are paused.
 */
export function renderLinkConfirmationPage(input: {
  brand: Brand;
  action: string;
  csrfToken: string;
  providerName: string;
  email: string;
  failed: boolean | 'codes';
  hasPassword: boolean;
  hasTotp: boolean;
  passkey: PasskeyAction | undefined;
  cancelHref: string;
}): string {
  const { brand, action, csrfToken, providerName, email, failed, passkey } = input;
  const password = input.hasPassword
    ? `<label for="password">Password of your account here</label>
<input id="password" name="password" type="password" autocomplete="current-password"${input.hasTotp ? '' : ' required autofocus'}>`
    : '';
  const otp = input.hasTotp
    ? `<label for="otp">${input.hasPassword ? 'Or a' : 'A'} code from the authenticator app of your account here</label>
<input id="otp" name="otp" type="text" inputmode="numeric" pattern="[0-9 ]*" maxlength="8" autocomplete="one-time-code">`
    : '';
  const form =
    input.hasPassword || input.hasTotp
      ? `<form method="post" action="${escapeHtml(action)}">
${hiddenInput('csrf', csrfToken)}
${password}
${otp}
<button type="submit">Link and sign in</button>
</form>`
      : '';
  const passkeyPart = passkey
    ? `${passkeySignInSection(passkey, 'Link with a passkey of your account here')}\n<noscript><p class="muted">Using a passkey needs JavaScript.</p></noscript>\n`
    : '';
  const proof =
    form || passkeyPart
      ? `${passkeyPart}${form}`
      : `<p>That account has no password. Sign in to it the way you usually do, then link ${escapeHtml(providerName)} from your account page.</p>`;
  const message = failed === 'codes' ? LINK_CODES_PAUSED_MESSAGE : failed ? LINK_FAILED_MESSAGE : '';
  return layout(
    brand,
    'Link your account',
    `<h1>Link your ${escapeHtml(providerName)} sign-in</h1>
<p>An account with the address <strong>${escapeHtml(email)}</strong> already exists here. To use ${escapeHtml(providerName)} to sign in to it, prove that it is yours. Nothing is linked until you do.</p>
${message ? `<p class="error" role="alert">${message}</p>` : ''}
${proof}
<p><a href="${escapeHtml(input.cancelHref)}">Sign in another way</a></p>`,
    passkey ? { scriptPaths: PASSKEY_SCRIPTS } : {},
  );
}

type Failure = Extract<FederationOutcome, { ok: false }>['reason'] | 'no_pending' | 'not_offered' | 'link_conflict';

/** The page for each failure: what the user can do, a way back to the sign-in, and the cause only in the log. */
export function federationFailure(reason: Failure, providerName: string, back: string, detail?: string): PageError {
  const name = providerName;
  const page = (title: string, text: string, status: number) =>
    new PageError(
      title,
      text,
      status,
      {},
      { back: { href: back, label: 'Back to sign-in' }, log: { reason: `federation_${reason}`, ...(detail ? { detail } : {}) } },
    );
  switch (reason) {
    case 'upstream_refused':
      return page(`${name} did not sign you in`, `${name} answered that the sign-in was cancelled or refused. You can try again, or sign in another way.`, 400);
    case 'upstream_unreachable':
      return page(`${name} is not answering`, `${name} could not be reached in time. Try again in a moment, or sign in another way.`, 502);
    case 'upstream_invalid':
    case 'missing_subject':
      return page(
        `${name} sent an answer we cannot use`,
        `The answer from ${name} could not be accepted. Try again; if it keeps happening, tell the administrator of this site.`,
        502,
      );
    case 'provider_unavailable':
    case 'not_offered':
      return page(`${name} is not available`, `Signing in with ${name} is not available here right now. Sign in another way.`, 400);
    case 'no_account':
      return page(
        'No account',
        `There is no account here for the ${name} account you used, and one cannot be created from it. Sign in another way, or ask the administrator of this site for an account.`,
        403,
      );
    case 'link_conflict':
      return page(
        'Already linked',
        `Your account here is already linked to another ${name} account, or this ${name} account to another account here. Sign in another way, and manage links on your account page.`,
        409,
      );
    default:
      // state, iss, nonce, provider mix-up, lifetime, no pending request: nothing the user did wrong to explain.
      return page(
        'This sign-in cannot continue',
        `The answer from ${name} does not belong to a sign-in started in this browser, or it took too long. Start the sign-in again.`,
        400,
      );
  }
}

/** The callback found no sign-in (or link) of this browser to continue. */
export const notFound = (reason: string) =>
  new PageError('Sign-in not found', 'This sign-in cannot continue in this browser. Return to the application and start again.', 400, {}, { log: { reason } });
