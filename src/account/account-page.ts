// The /account page of a signed-in user: password, two-step verification (TOTP with its QR code as inline
// SVG rendered on the server, and the URI as text), recovery codes, sessions and granted applications.
// Every change is a POST form with the session's CSRF token; the only script is the passkey ceremony (our own
// files, CSP script-src 'self'), which adds and uses passkeys through JSON endpoints (account-passkeys.ts).
import type { Brand } from '../http/brand.js';
import { escapeHtml } from '../http/html.js';
import type { SecondFactorStatus, TotpEnrollment } from '../interaction/mfa/second-factors.js';
import { hiddenInput, layout } from '../interaction/pages/layout.js';
import type { AccountSession, GrantedApp } from '../storage/repositories/account-repository.js';
import type { PasskeyCredential } from '../storage/repositories/passkeys-repository.js';
import { PASSKEY_SCRIPTS } from '../interaction/passkeys/passkey-assets.js';
import { passkeyAction, passkeySignInSection } from '../interaction/passkeys/passkey-fragments.js';
import { passkeysSection } from './account-passkeys-page.js';
import { renderRecoveryCodesPage } from '../interaction/mfa/recovery-codes-page.js';
import { totpKeyFragment } from '../interaction/mfa/totp-key-fragment.js';

export interface AccountPageInput {
  brand: Brand;
  csrfToken: string;
  username: string;
  currentSession: string;
  factors: SecondFactorStatus;
  enrollment: TotpEnrollment | undefined;
  sessions: AccountSession[];
  apps: GrantedApp[];
  /** The "Apps acting for you" section (account-delegations.ts). */
  delegations: string;
  passkeys: PasskeyCredential[];
  /** The sign-in providers section (account-identities.ts). */
  providers: string;
  notice: string | undefined;
  error: string | undefined;
  /** Show the "confirm it is you" form (a factor change was refused for a stale proof, or the proof failed). */
  reauth: boolean;
  /** After a password change: list the account's factors so the user can remove any they do not recognise. */
  reviewFactors: boolean;
  /** The account's address and the form to change it; absent when e-mail is off. */
  email?: { address: string | null; verified: boolean } | undefined;
}

/** Messages by the code in the query string after a 303: fixed text, never echoed input. */
export const ACCOUNT_NOTICES: Record<string, string> = {
  password: 'Your password was changed. Your other sessions were ended and apps must sign in again.',
  email_sent: 'We sent a link to the new address. The address changes once you open it.',
  totp_removed: 'The authenticator app was removed.',
  session_ended: 'The session was ended.',
  app_revoked: 'The app’s access was revoked.',
  delegation_revoked: 'That app no longer acts for you there.',
  passkey_added: 'The passkey was added.',
  passkey_removed: 'The passkey was removed.',
  reauth: 'Thank you. For the next few minutes you can add or remove second factors and sign-in providers.',
  identity_linked: 'The sign-in provider was linked.',
  identity_unlinked: 'The sign-in provider was unlinked.',
};

export const ACCOUNT_ERRORS: Record<string, string> = {
  current_password: 'The current password is not correct.',
  email_invalid: 'Type an e-mail address.',
  email_same: 'That is already the address of your account.',
  email_off: 'Changing the e-mail address is not available here.',
  new_password: 'The new password must be 8 to 1024 characters.',
  totp_code: 'That code is not correct. Scan the QR code again or check the time on your device.',
  totp_active: 'An authenticator app is already set up. Remove it first.',
  not_linkable: 'That provider cannot be linked: it is not available, or already linked.',
  last_way_in: 'That provider is the only way to sign in to your account. Add a passkey or link another provider before unlinking it.',
  passkey_last_way_in: 'That passkey is the only way to sign in to your account. Set a password, add another passkey or link a provider before removing it.',
};

/** Codes whose page shows the "confirm it is you" form. */
export const REAUTH_ERRORS = new Set(['reauth', 'reauth_link', 'reauth_failed']);

/** The ways this account can confirm it is them: the password, and only the factors it has. */
function reauthWays(factors: SecondFactorStatus): string {
  const ways = [
    'your password',
    ...(factors.totp === 'active' ? ['a code from your authenticator app'] : []),
    ...(factors.passkeys > 0 ? ['one of your passkeys'] : []),
  ];
  return ways.length === 1 ? ways[0]! : `${ways.slice(0, -1).join(', ')} or ${ways.at(-1)}`;
}

/** The message of a re-authentication code (REAUTH_ERRORS), naming only what the account can use. */
export function reauthMessage(code: string, factors: SecondFactorStatus): string {
  if (code === 'reauth_failed') return `That was not accepted. Use ${reauthWays(factors)}.`;
  const what = code === 'reauth_link' ? 'linking or unlinking a sign-in provider' : 'changing your two-step verification';
  return `Confirm it is you before ${what}: use ${reauthWays(factors)} below, then try again. An account without a password or second factor confirms it by signing in again.`;
}

const post = (action: string, csrf: string, inner: string, className = '') =>
  `<form method="post" action="${escapeHtml(action)}"${className ? ` class="${className}"` : ''}>\n${hiddenInput('csrf', csrf)}\n${inner}\n</form>`;

const when = (date: Date | null) => (date ? `${escapeHtml(date.toISOString().slice(0, 16).replace('T', ' '))} UTC` : 'unknown time');

function twoStepSection(input: AccountPageInput): string {
  const { csrfToken: csrf, factors, enrollment } = input;
  if (factors.totp === 'active') {
    return `<p>An authenticator app is set up. Recovery codes left: <strong>${factors.recoveryCodes}</strong>.</p>
<div class="actions">
${post('/account/recovery-codes', csrf, '<button type="submit" class="secondary">New recovery codes</button>', 'inline')}
${post('/account/totp/remove', csrf, '<button type="submit" class="secondary">Remove authenticator app</button>', 'inline')}
</div>`;
  }
  if (enrollment) {
    return `${totpKeyFragment(enrollment)}
${post(
  '/account/totp/confirm',
  csrf,
  `<label for="otp">Code from your authenticator app</label>
<input id="otp" name="otp" type="text" inputmode="numeric" pattern="[0-9 ]*" maxlength="8" autocomplete="one-time-code" required>
<div class="actions"><button type="submit">Turn on</button></div>`,
)}
${post('/account/totp/remove', csrf, '<button type="submit" class="secondary">Cancel</button>')}`;
  }
  return `<p>Add a one-time code from an authenticator app to your password.</p>
${post('/account/totp', csrf, '<button type="submit">Set up authenticator app</button>')}`;
}

function sessionsSection({ sessions, currentSession, csrfToken }: AccountPageInput): string {
  const items = sessions.map((s) => {
    const current = s.idHash === currentSession;
    const end = post(
      '/account/sessions/end',
      csrfToken,
      `${hiddenInput('session', s.idHash)}\n<button type="submit" class="secondary small">${current ? 'Sign out here' : 'End session'}</button>`,
      'inline',
    );
    return `<li><strong>${escapeHtml(s.userAgent ?? 'Unknown device')}</strong>${current ? ' <span class="muted">(this browser)</span>' : ''}<br>
<span class="muted">Signed in ${when(s.signedInAt)} from ${escapeHtml(s.ipAddress ?? 'an unknown address')}</span><br>${end}</li>`;
  });
  return `<ul class="rows">${items.join('\n')}</ul>`;
}

function appsSection({ apps, csrfToken }: AccountPageInput): string {
  if (apps.length === 0) return '<p class="muted">No apps have access to your account.</p>';
  const items = apps.map(
    (a) => `<li><strong>${escapeHtml(a.clientName)}</strong><br>
<span class="muted">${escapeHtml(a.scopes.join(' '))} · since ${when(a.grantedAt)}</span><br>
${post('/account/apps/revoke', csrfToken, `${hiddenInput('client_id', a.clientId)}\n<button type="submit" class="secondary small" aria-label="Revoke access of ${escapeHtml(a.clientName)}">Revoke access</button>`, 'inline')}</li>`,
  );
  return `<ul class="rows">${items.join('\n')}</ul>`;
}

/**
 * Re-authentication (docs/security/account-factors.md): the current password, a code when the account has
 * an authenticator app, and one of its passkeys when it has any (the passkey script reveals that part).
 */
function reauthSection({ csrfToken: csrf, username, factors }: AccountPageInput): string {
  const code =
    factors.totp === 'active'
      ? `<label for="reauth_otp">Or a code from your authenticator app</label>
<input id="reauth_otp" name="otp" type="text" inputmode="numeric" pattern="[0-9 ]*" maxlength="8" autocomplete="one-time-code">`
      : '';
  const passkey = factors.passkeys > 0 ? `\n${passkeySignInSection(passkeyAction('/account/reauth/passkey', csrf), 'Confirm with a passkey')}` : '';
  return `<section id="reauth" aria-labelledby="reauth-title"><h2 id="reauth-title">Confirm it is you</h2>
${post(
  '/account/reauth',
  csrf,
  `<input type="text" name="username" autocomplete="username" value="${escapeHtml(username)}" hidden>
<label for="reauth_password">Your password</label>
<input id="reauth_password" name="password" type="password" autocomplete="current-password">
${code}
<button type="submit">Confirm</button>`,
)}${passkey}</section>`;
}

/** The address, and the form that mails a link to a new one (a fresh proof is asked first, like a factor change). */
function emailSection({ csrfToken: csrf, email }: AccountPageInput): string {
  if (!email) return '';
  const current = email.address
    ? `<p>Your address: <strong>${escapeHtml(email.address)}</strong>${email.verified ? ' <span class="muted">(confirmed)</span>' : ' <span class="muted">(not confirmed)</span>'}</p>`
    : '<p class="muted">Your account has no e-mail address.</p>';
  return `<h2>E-mail address</h2>
${current}
${post(
  '/account/email',
  csrf,
  `<label for="new_email">New e-mail address</label>
<input id="new_email" name="email" type="email" autocomplete="email" maxlength="254" required>
<button type="submit" class="secondary">Send a confirmation link</button>`,
)}`;
}

/** After a password change: every second factor of the account, each removable from the sections below. */
function factorReview({ factors, passkeys }: AccountPageInput): string {
  const items = [
    ...(factors.totp === 'active' ? ['<li>An authenticator app (one-time codes)</li>'] : []),
    ...(factors.recoveryCodes > 0 ? [`<li>${factors.recoveryCodes} recovery codes</li>`] : []),
    ...passkeys.map((p) => `<li>Passkey <strong>${escapeHtml(p.name)}</strong>, added ${when(p.createdAt)}</li>`),
  ];
  if (items.length === 0) return '<p id="factor-review" class="muted">Your account has no second factors.</p>';
  return `<div id="factor-review"><p>These second factors can sign in to your account. If you do not recognise one, remove it below now.</p>
<ul>${items.join('')}</ul></div>`;
}

export function renderAccountPage(input: AccountPageInput): string {
  const { brand, csrfToken: csrf, username, notice, error } = input;
  return layout(
    brand,
    'Your account',
    `<h1>Your account</h1>
<p>Signed in as <strong>${escapeHtml(username)}</strong>.</p>
${notice ? `<p class="notice" role="status">${escapeHtml(notice)}</p>` : ''}${error ? `<p class="error" role="alert">${escapeHtml(error)}</p>` : ''}
${input.reviewFactors ? factorReview(input) : ''}${input.reauth ? reauthSection(input) : ''}
${emailSection(input)}
<h2>Password</h2>
${post(
  '/account/password',
  csrf,
  `<input type="text" name="username" autocomplete="username" value="${escapeHtml(username)}" hidden>
<label for="current_password">Current password</label>
<input id="current_password" name="current_password" type="password" autocomplete="current-password" required>
<label for="new_password">New password</label>
<input id="new_password" name="new_password" type="password" autocomplete="new-password" minlength="8" maxlength="1024" required>
<button type="submit">Change password</button>`,
)}
<h2>Two-step verification</h2>
${twoStepSection(input)}
<h2>Passkeys</h2>
${passkeysSection(input.passkeys, csrf)}
<h2>Sign-in providers</h2>
${input.providers}
<h2>Where you are signed in</h2>
${sessionsSection(input)}
<h2>Apps with access</h2>
${appsSection(input)}
<h2>Apps acting for you</h2>
${input.delegations}
${post('/account/logout', csrf, '<button type="submit" class="secondary">Sign out</button>')}`,
    { scriptPaths: PASSKEY_SCRIPTS },
  );
}

/** Shown once, as the answer to the POST that created them (no-store): only their hashes are kept. The page is shared with the flow's set-up. */
export const renderAccountRecoveryCodesPage = ({ brand, codes }: { brand: Brand; codes: readonly string[] }): string =>
  renderRecoveryCodesPage({ brand, codes, done: { href: '/account', label: 'Done' } });
