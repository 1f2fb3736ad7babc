// RP-initiated logout without a trustworthy id_token_hint asks the user first (OIDC RP-Initiated Logout 1.0 §2).
// Cancel is a plain link home: it changes nothing, so it needs no form or CSRF token.
import type { Brand } from '../../http/brand.js';
import { escapeHtml } from '../../http/html.js';
import { hiddenInput, layout } from './layout.js';

export function renderLogoutConfirmPage({ brand, csrfToken }: { brand: Brand; csrfToken: string }): string {
  return layout(
    brand,
    'Sign out',
    `<h1>Sign out?</h1>
<p>You will be signed out of ${escapeHtml(brand.name)} in this browser.</p>
<form method="post" action="/logout">
${hiddenInput('csrf', csrfToken)}
<div class="actions">
<button type="submit" name="confirm" value="yes">Sign out</button>
<a class="button secondary" href="/">Cancel</a>
</div>
</form>`,
  );
}

export const renderLoggedOutPage = (brand: Brand): string =>
  layout(brand, 'Signed out', '<h1>You are signed out</h1><p>You can close this window, or go to the <a href="/">home page</a>.</p>');
