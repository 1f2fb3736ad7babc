// The consent screen: who asks (the client's registered name, escaped) and each scope in plain words, as
// its resource server registered it, with that resource server's name.
// Approving is a POST with the CSRF token; the buttons are named `decision`.
import type { Brand } from '../../http/brand.js';
import { escapeHtml } from '../../http/html.js';
import { hiddenInput, layout } from './layout.js';

export interface ConsentPageInput {
  brand: Brand;
  action: string;
  csrfToken: string;
  clientName: string;
  scope: readonly string[];
  /** A scope's plain-language description and the name of the resource server it belongs to. */
  describe: (scope: string) => { description?: string | undefined; resource?: string | undefined };
  username: string;
  /** Shown above the buttons: for a device flow, to approve only what the user started (RFC 8628 5.4). */
  warning?: string;
  /**
   * A client nobody registered by hand (docs/agents.md): its name is its own claim, so the page leads with what
   * can be checked — the host that publishes its metadata document, or the host its redirect goes to.
   */
  unregistered?: { kind: 'metadata_document' | 'self_registered'; host: string };
}

function unregisteredNotice(unregistered: NonNullable<ConsentPageInput['unregistered']>): string {
  const host = `<strong class="host">${escapeHtml(unregistered.host)}</strong>`;
  const what =
    unregistered.kind === 'metadata_document'
      ? `This application is described by ${host}. It is <strong>not registered with this server</strong>: its name is what ${host} says about itself.`
      : `This application <strong>registered itself</strong> (self-registered): it is <strong>not registered with this server</strong> by its operators. It will return you to ${host}.`;
  return `<p class="notice" role="note">${what} Allow only if you trust ${host}.</p>
`;
}

export function renderConsentPage({ brand, action, csrfToken, clientName, scope, describe, username, warning, unregistered }: ConsentPageInput): string {
  const items = scope.map((s) => {
    const { description, resource } = describe(s);
    const origin = resource ? `${escapeHtml(resource)}: ` : '';
    return `<li>${escapeHtml(description ?? s)} <span class="muted">(${origin}${escapeHtml(s)})</span></li>`;
  });
  return layout(
    brand,
    'Allow access',
    `<h1>Allow access?</h1>
${unregistered ? unregisteredNotice(unregistered) : ''}<p><strong>${escapeHtml(clientName)}</strong>${unregistered ? ` <span class="muted">(${escapeHtml(unregistered.host)})</span>` : ''} asks to:</p>
<ul class="scopes">${items.join('')}</ul>
<p class="muted">Signed in as ${escapeHtml(username)}.</p>
${warning ? `<p class="notice" role="note"><strong>Check:</strong> ${escapeHtml(warning)}</p>\n` : ''}<form method="post" action="${escapeHtml(action)}">
${hiddenInput('csrf', csrfToken)}
<div class="actions">
<button type="submit" name="decision" value="allow">Allow</button>
<button type="submit" name="decision" value="deny" class="secondary">Deny</button>
</div>
</form>`,
  );
}
