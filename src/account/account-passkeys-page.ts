// The account page's passkeys: each with its name, when it was added and last used, and a remove button
// (a form POST with the CSRF token, labelled with the passkey's name); then the "Add a passkey" form, which
// the passkey script reveals and drives (without script the page says passkeys need it).
import { escapeHtml } from '../http/html.js';
import { hiddenInput } from '../interaction/pages/layout.js';
import { passkeyAction, passkeyRegisterSection } from '../interaction/passkeys/passkey-fragments.js';
import type { PasskeyCredential } from '../storage/repositories/passkeys-repository.js';

const when = (date: Date | null) => (date ? `${escapeHtml(date.toISOString().slice(0, 16).replace('T', ' '))} UTC` : 'never');

export function passkeysSection(passkeys: readonly PasskeyCredential[], csrfToken: string): string {
  const items = passkeys.map(
    (p) => `<li><strong>${escapeHtml(p.name)}</strong><br>
<span class="muted">Added ${when(p.createdAt)} · last used ${when(p.lastUsedAt)}</span><br>
<form method="post" action="/account/passkeys/remove" class="inline">
${hiddenInput('csrf', csrfToken)}
${hiddenInput('credential', p.credentialId)}
<button type="submit" class="secondary small" aria-label="Remove passkey ${escapeHtml(p.name)}">Remove</button>
</form></li>`,
  );
  const list =
    passkeys.length === 0
      ? '<p class="muted">No passkeys yet. A passkey signs you in without a password, or as the second step after it.</p>'
      : `<ul class="rows" id="passkeys">${items.join('\n')}</ul>`;
  return `${list}
${passkeyRegisterSection(passkeyAction('/account/passkeys', csrfToken))}
<noscript><p class="muted">Adding a passkey needs JavaScript.</p></noscript>`;
}
