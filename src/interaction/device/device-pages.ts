// The pages of /device (RFC 8628 3.3): the code entry form, the result, and the expired flow. The entry form
// is shown prefilled when the user followed verification_uri_complete, but still has to be submitted by the
// user (RFC 8628 5.4: a link alone never starts anything), and it says what the code is for.
import type { Brand } from '../../http/brand.js';
import { escapeHtml } from '../../http/html.js';
import { hiddenInput, layout } from '../pages/layout.js';
import type { DeviceOutcome } from './device-outcome.js';

export interface DeviceEntryPageInput {
  brand: Brand;
  action: string;
  csrfToken: string;
  /** The code from verification_uri_complete or the last attempt, shown for the user to check. */
  userCode?: string;
  error?: string;
}

export function renderDeviceEntryPage({ brand, action, csrfToken, userCode, error }: DeviceEntryPageInput): string {
  const prefilled = userCode !== undefined && error === undefined;
  return layout(
    brand,
    'Connect a device',
    `<h1>Connect a device</h1>
<p>${prefilled ? 'Check that this is the code your device shows, then continue.' : 'Enter the code shown on your device.'}</p>
${error ? `<p class="error" role="alert">${escapeHtml(error)}</p>` : ''}
<form method="post" action="${escapeHtml(action)}">
${hiddenInput('csrf', csrfToken)}
<label for="user_code">Code from your device</label>
<input id="user_code" name="user_code" type="text" autocomplete="off" autocapitalize="characters" spellcheck="false" inputmode="text" maxlength="32" required placeholder="XXXX-XXXX" value="${escapeHtml(userCode ?? '')}" autofocus>
<button type="submit">Continue</button>
</form>
<p class="muted">Only enter a code you got from a device you are setting up yourself. Never enter a code someone sent you.</p>`,
  );
}

const RESULTS: Record<DeviceOutcome, { title: string; text: string }> = {
  approved: { title: 'Device connected', text: 'You can close this page and go back to your device.' },
  denied: { title: 'Request denied', text: 'The device was not given access. You can close this page.' },
  gone: { title: 'Code no longer valid', text: 'This code expired or was already used. Start again on your device to get a new code.' },
};

export function renderDeviceResultPage(brand: Brand, outcome: DeviceOutcome): string {
  const { title, text } = RESULTS[outcome];
  return layout(brand, title, `<h1>${escapeHtml(title)}</h1>\n<p>${escapeHtml(text)}</p>`);
}

/** The flow ran out before it was decided: the device keeps polling until its own code expires. */
export function renderDeviceExpiredPage(brand: Brand, devicePath: string): string {
  return layout(
    brand,
    'Sign-in expired',
    `<h1>This sign-in has expired</h1>
<p>It took too long, or your browser did not keep the sign-in cookie.</p>
<p><a class="button" href="${escapeHtml(devicePath)}">Enter the code again</a></p>`,
  );
}

/** The consent page's warning for a device flow (RFC 8628 5.4, remote phishing). */
export const DEVICE_CONSENT_WARNING =
  'Only allow this if you started it yourself on a device in front of you. If someone sent you this code or a link to this page, deny.';
