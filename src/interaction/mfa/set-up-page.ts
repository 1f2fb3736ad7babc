// The page a flow shows when the application needs two-step verification and the account has none yet
// (set-up-in-flow.ts): set up an authenticator app or a passkey here and go on, or decline and go back to
// the application (which then gets unmet_authentication_requirements). A session whose proof of the
// account is older than REAUTH_MAX_AGE is first asked for its password, as on /account.
import type { Brand } from '../../http/brand.js';
import { escapeHtml } from '../../http/html.js';
import { hiddenInput, layout } from '../pages/layout.js';
import { PASSKEY_SCRIPTS } from '../passkeys/passkey-assets.js';
import { passkeyRegisterSection, type PasskeyAction } from '../passkeys/passkey-fragments.js';
import type { TotpEnrollment } from './second-factors.js';
import { totpKeyFragment } from './totp-key-fragment.js';

export interface SetUpPageInput {
  brand: Brand;
  /** The interaction's path; the forms post under it. */
  action: string;
  csrfToken: string;
  clientName: string;
  /** The session's proof of the account is fresh enough to bind a factor. */
  freshProof: boolean;
  /** An authenticator app waiting for its first code. */
  enrollment: TotpEnrollment | undefined;
  passkey: PasskeyAction;
  error: string | undefined;
}

export const SET_UP_ERRORS: Record<string, string> = {
  totp_code: 'That code is not correct. Type the code your authenticator app shows now.',
  reauth_failed: 'That password is not correct.',
};

const post = (action: string, csrf: string, inner: string) =>
  `<form method="post" action="${escapeHtml(action)}">\n${hiddenInput('csrf', csrf)}\n${inner}\n</form>`;

export function renderSetUpPage(input: SetUpPageInput): string {
  const { brand, action, csrfToken: csrf, clientName, error } = input;
  return layout(
    brand,
    'Set up two-step verification',
    `<h1>Set up two-step verification</h1>
<p><strong>${escapeHtml(clientName)}</strong> requires two-step verification, and your account does not have it yet. Set it up now to continue: you will use it once right after.</p>
${error ? `<p class="error" role="alert">${escapeHtml(error)}</p>` : ''}
${input.freshProof ? setUpChoices(input) : confirmItIsYou(action, csrf)}
${post(`${action}/decline`, csrf, `<button type="submit" class="secondary">Not now: return to ${escapeHtml(clientName)}</button>`)}`,
    input.freshProof && !input.enrollment ? { scriptPaths: PASSKEY_SCRIPTS } : {},
  );
}

function confirmItIsYou(action: string, csrf: string): string {
  return `<section id="reauth" aria-labelledby="reauth-title"><h2 id="reauth-title">Confirm it is you</h2>
${post(
  `${action}/set-up/reauth`,
  csrf,
  `<label for="reauth_password">Your password</label>
<input id="reauth_password" name="password" type="password" autocomplete="current-password" required autofocus>
<button type="submit">Confirm</button>`,
)}</section>`;
}

function setUpChoices({ action, csrfToken: csrf, enrollment, passkey }: SetUpPageInput): string {
  if (enrollment) {
    return `${totpKeyFragment(enrollment)}
${post(
  `${action}/set-up/totp/confirm`,
  csrf,
  `<label for="otp">Code from your authenticator app</label>
<input id="otp" name="otp" type="text" inputmode="numeric" pattern="[0-9 ]*" maxlength="8" autocomplete="one-time-code" required autofocus>
<button type="submit">Turn on</button>`,
)}`;
  }
  return `${passkeyRegisterSection(passkey)}
${post(`${action}/set-up/totp`, csrf, '<button type="submit">Set up authenticator app</button>')}`;
}
