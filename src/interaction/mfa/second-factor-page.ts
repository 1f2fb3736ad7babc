// The second step of a sign-in for an account with a second factor: a six-digit code from the authenticator
// app (input `otp`), or one of the recovery codes (input `recovery_code`, in a <details> that opens without
// script). Both forms carry the session's CSRF token; the page has the login page's headers.
import type { Brand } from '../../http/brand.js';
import { escapeHtml } from '../../http/html.js';
import { hiddenInput, layout } from '../pages/layout.js';
import { PASSKEY_SCRIPTS } from '../passkeys/passkey-assets.js';
import { passkeySignInSection, type PasskeyAction } from '../passkeys/passkey-fragments.js';

export interface SecondFactorPageInput {
  brand: Brand;
  action: string;
  csrfToken: string;
  /** Whom the sign-in is for (an application's name, or the account page). */
  continueTo: string;
  failed: boolean;
  /** The factors the user has (default: an authenticator app and recovery codes). */
  offer?: { totp: boolean; recoveryCodes: boolean; passkey: PasskeyAction | undefined };
}

const SECOND_FACTOR_FAILED_MESSAGE = 'That code is not correct, or it was already used.';

export function renderSecondFactorPage({ brand, action, csrfToken, continueTo, failed, offer }: SecondFactorPageInput): string {
  const { totp, recoveryCodes, passkey } = offer ?? { totp: true, recoveryCodes: true, passkey: undefined };
  const passkeyPart = passkey
    ? `${passkeySignInSection(passkey, 'Use a passkey')}\n<noscript><p class="muted">Using a passkey needs JavaScript.</p></noscript>\n`
    : '';
  return layout(
    brand,
    'Two-step verification',
    `<h1>Two-step verification</h1>
<p>to continue to <strong>${escapeHtml(continueTo)}</strong></p>
${failed ? `<p class="error" role="alert">${SECOND_FACTOR_FAILED_MESSAGE}</p>` : ''}
${passkeyPart}${totp ? totpForm(action, csrfToken) : ''}${recoveryCodes ? recoveryForm(action, csrfToken) : ''}`,
    passkey ? { scriptPaths: PASSKEY_SCRIPTS } : {},
  );
}

const totpForm = (action: string, csrfToken: string) => `<form method="post" action="${escapeHtml(action)}">
${hiddenInput('csrf', csrfToken)}
<label for="otp">Code from your authenticator app</label>
<input id="otp" name="otp" type="text" inputmode="numeric" pattern="[0-9 ]*" maxlength="8" autocomplete="one-time-code" required autofocus>
<button type="submit">Verify</button>
</form>
`;

const recoveryForm = (action: string, csrfToken: string) => `<details>
<summary>Use a recovery code instead</summary>
<form method="post" action="${escapeHtml(action)}">
${hiddenInput('csrf', csrfToken)}
<label for="recovery_code">Recovery code</label>
<input id="recovery_code" name="recovery_code" type="text" autocomplete="off" spellcheck="false" maxlength="64" required>
<button type="submit" class="secondary">Use recovery code</button>
</form>
</details>`;
