// OAuth 2.0 Form Post Response Mode §2: the authorization response as an HTML form that the browser POSTs
// to the redirect_uri. Our CSP forbids inline script, so the auto-submit is a script file of our own
// origin, and this page's CSP allows exactly that file (a path-restricted source) and posting exactly to
// the client's origin. Without JavaScript the visible button sends the same form.
import { FORM_POST_SCRIPT_PATH } from '../../http/assets.js';
import type { Brand } from '../../http/brand.js';
import { escapeHtml, pageSecurityHeaders } from '../../http/html.js';
import type { AuthorizationResponse } from '../../oauth/authorize/redirect.js';
import { cspSource } from './page-headers.js';
import { hiddenInput, layout } from './layout.js';

/** The response's parameters as the hidden fields of a form. */
export const responseFields = (response: AuthorizationResponse): string =>
  Object.entries(response.params)
    .filter((entry): entry is [string, string] => entry[1] !== undefined)
    .map(([name, value]) => hiddenInput(name, value))
    .join('\n');

export function renderFormPostPage(brand: Brand, response: AuthorizationResponse): string {
  return layout(
    brand,
    'Returning to the application',
    `<form method="post" action="${escapeHtml(response.target.redirectUri)}" data-auto-submit>
${responseFields(response)}
<h1>Returning to the application</h1>
<p>If nothing happens, continue by hand.</p>
<button type="submit">Continue</button>
</form>`,
    { scriptPath: FORM_POST_SCRIPT_PATH },
  );
}

export function formPostHeaders(redirectUri: string, issuer: string): Record<keyof typeof pageSecurityHeaders, string> {
  const target = cspSource(redirectUri) ?? "'none'";
  return {
    ...pageSecurityHeaders,
    'content-security-policy': `default-src 'none'; script-src ${issuer}${FORM_POST_SCRIPT_PATH}; style-src 'self'; img-src 'self'; form-action ${target}; frame-ancestors 'none'; base-uri 'none'`,
  };
}
