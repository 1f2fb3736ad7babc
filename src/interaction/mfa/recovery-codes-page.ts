// The recovery codes, shown once: after an authenticator app is turned on (on /account or inside an
// authorization flow) and when they are regenerated. `done` is where the user goes on to.
import type { Brand } from '../../http/brand.js';
import { escapeHtml } from '../../http/html.js';
import { layout } from '../pages/layout.js';

export function renderRecoveryCodesPage({ brand, codes, done }: { brand: Brand; codes: readonly string[]; done: { href: string; label: string } }): string {
  return layout(
    brand,
    'Recovery codes',
    `<h1>Your recovery codes</h1>
<p>Each code signs you in once if you lose your authenticator app. Keep them somewhere safe: they are shown only now.</p>
<ol class="codes" id="recovery-codes">${codes.map((c) => `<li><code>${escapeHtml(c)}</code></li>`).join('')}</ol>
<p><a class="button" href="${escapeHtml(done.href)}">${escapeHtml(done.label)}</a></p>`,
  );
}
