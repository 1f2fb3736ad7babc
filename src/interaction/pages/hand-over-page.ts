// The hand-over page: a 200 page of ours that moves the browser on by itself (meta refresh, no script) with a
// visible Continue link, instead of a redirect. Browsers check every redirect that follows a form submission
// against the submitting page's CSP form-action (CSP3 §6.4.1; Chromium enforces it, w3c/webappsec-csp#8), so
// a 303 to the client after our own form would be checked against our form-action — and a relying party
// whose redirect_uri redirects on to another origin (a broker, a callback bouncing to its app) would be
// blocked there. The page ends the form's chain; its refresh is a navigation of its own, checked against no
// form-action. Every answer to the client after one of our forms is this page (answer.ts), and the federated
// sign-in hands over to the interaction with it after the upstream's form (federation/after-upstream.ts).
//
// Only a URI the server already holds goes in: the client's VALIDATED redirect_uri with the response's
// parameters (responseUrl), or a path of ours — never a value read from the request. It is HTML-escaped, and
// the page needs no script (its CSP forbids inline script anyway).
import type { Brand } from '../../http/brand.js';
import { escapeHtml } from '../../http/html.js';
import { layout } from './layout.js';

export interface HandOver {
  /** Where the browser goes: the validated redirect URI with the response, or a path of this server. */
  href: string;
  /** The heading: what is happening ("Signing you in", "Returning to the application"). */
  title: string;
}

export function renderHandOverPage(brand: Brand, { href, title }: HandOver): string {
  return layout(
    brand,
    title,
    `<h1>${escapeHtml(title)}…</h1>
<p>If nothing happens, continue by hand.</p>
<p><a class="button" href="${escapeHtml(href)}">Continue</a></p>`,
    { refreshTo: href },
  );
}
