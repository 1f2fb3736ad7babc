// The consent screen: who asks (the client's registered name, escaped) and each scope in plain words.
// Approving is a POST with the CSRF token; the buttons are named `decision`.
import type { Brand } from '../../http/brand.js';
import { escapeHtml } from '../../http/html.js';
import { isScope, scopeDescriptions } from '../../oauth/scopes.js';
import { hiddenInput, layout } from './layout.js';

export interface ConsentPageInput {
  brand: Brand;
  action: string;
  csrfToken: string;
  clientName: string;
  scope: readonly string[];
  username: string;
}

export function renderConsentPage({ brand, action, csrfToken, clientName, scope, username }: ConsentPageInput): string {
  const items = scope.map((s) => `<li>${escapeHtml(isScope(s) ? scopeDescriptions[s] : s)} <span class="muted">(${escapeHtml(s)})</span></li>`);
  return layout(
    brand,
    'Allow access',
    `<h1>Allow access?</h1>
<p><strong>${escapeHtml(clientName)}</strong> asks to:</p>
<ul class="scopes">${items.join('')}</ul>
<p class="muted">Signed in as ${escapeHtml(username)}.</p>
<form method="post" action="${escapeHtml(action)}">
${hiddenInput('csrf', csrfToken)}
<div class="actions">
<button type="submit" name="decision" value="allow">Allow</button>
<button type="submit" name="decision" value="deny" class="secondary">Deny</button>
</div>
</form>`,
  );
}
