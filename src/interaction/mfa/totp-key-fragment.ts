// The key of an authenticator app waiting for its first code, as the in-flow set-up page and /account show
// it: the QR code (inline SVG rendered on the server) and, for a device that cannot scan, the key and URI as
// text. Each page adds its own confirmation form below it.
import { escapeHtml } from '../../http/html.js';
import type { TotpEnrollment } from './second-factors.js';

export function totpKeyFragment(enrollment: TotpEnrollment): string {
  return `<p>Scan this QR code with your authenticator app, then type the code it shows.</p>
<figure class="qr" aria-label="QR code of the authenticator key">${enrollment.svg}</figure>
<details><summary>Can’t scan it? Enter the key by hand</summary>
<p>Key: <code id="totp-secret">${escapeHtml(enrollment.secret)}</code></p>
<p class="muted">URI: <code id="totp-uri">${escapeHtml(enrollment.uri)}</code></p>
</details>`;
}
