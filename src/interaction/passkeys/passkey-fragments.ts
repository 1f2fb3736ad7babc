// What a page needs to offer a passkey: a section that the passkey script (passkey-assets.ts) reveals and
// drives, and headers whose CSP lets exactly our own scripts run and call our own endpoints. Without script
// the section stays hidden and the page's forms work as before.
import { escapeHtml } from '../../http/html.js';
import { hiddenInput } from '../pages/layout.js';

export interface PasskeyAction {
  optionsUrl: string;
  verifyUrl: string;
  csrfToken: string;
}

/** "Sign in with a passkey" (passwordless) or "Use a passkey" (second factor). */
export function passkeySignInSection(action: PasskeyAction, label: string): string {
  return `<section class="passkey" data-passkey="authenticate" data-options-url="${escapeHtml(action.optionsUrl)}" data-verify-url="${escapeHtml(action.verifyUrl)}" hidden>
<form>
${hiddenInput('csrf', action.csrfToken)}
<button type="submit" class="secondary">${escapeHtml(label)}</button>
</form>
<p class="muted" data-passkey-status role="status" aria-live="polite"></p>
</section>`;
}

/** The account page's "Add a passkey" form: the name, then the browser's registration ceremony. */
export function passkeyRegisterSection(action: PasskeyAction): string {
  return `<section class="passkey" data-passkey="register" data-options-url="${escapeHtml(action.optionsUrl)}" data-verify-url="${escapeHtml(action.verifyUrl)}" hidden>
<form>
${hiddenInput('csrf', action.csrfToken)}
<label for="passkey_name">Name of the new passkey</label>
<input id="passkey_name" name="name" type="text" maxlength="64" autocomplete="off" placeholder="e.g. Work laptop" required>
<button type="submit">Add a passkey</button>
</form>
<p class="muted" data-passkey-status role="status" aria-live="polite"></p>
</section>`;
}

/** The page's headers with our own scripts allowed, and fetch to our own origin (the ceremonies' endpoints). */
export function withPasskeyScripts<T extends { 'content-security-policy': string }>(headers: T): T {
  return {
    ...headers,
    'content-security-policy': headers['content-security-policy'].replace("default-src 'none';", "default-src 'none'; script-src 'self'; connect-src 'self';"),
  };
}

/** The ceremony endpoints under a page's path (`/interaction/:id` or `/account`). */
export const passkeyAction = (base: string, csrfToken: string): PasskeyAction => ({ optionsUrl: `${base}/options`, verifyUrl: `${base}/verify`, csrfToken });

/** The second-factor page offers exactly the factors the user has. */
export async function secondFactorOffer(
  userId: string,
  factors: { status(userId: string): Promise<{ totp: string; recoveryCodes: number; passkeys: number }> },
  passkey: PasskeyAction,
): Promise<{ totp: boolean; recoveryCodes: boolean; passkey: PasskeyAction | undefined }> {
  const status = await factors.status(userId);
  return { totp: status.totp === 'active', recoveryCodes: status.recoveryCodes > 0, passkey: status.passkeys > 0 ? passkey : undefined };
}
