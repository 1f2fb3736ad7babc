// When the interaction or the browser session ran out mid-flow: never a dead end. The user can start
// the same authorization again, or go back to the application, which then receives an error it can act on.
import type { Brand } from '../../http/brand.js';
import { escapeHtml } from '../../http/html.js';
import { layout } from './layout.js';

export function renderExpiredPage({ brand, restartUrl, returnUrl, clientName }: { brand: Brand; restartUrl: string; returnUrl: string; clientName: string }): string {
  return layout(
    brand,
    'Sign-in expired',
    `<h1>This sign-in has expired</h1>
<p>It took too long, or your browser did not keep the sign-in cookie.</p>
<p><a class="button" href="${escapeHtml(restartUrl)}">Start again</a></p>
<p><a href="${escapeHtml(returnUrl)}">Return to ${escapeHtml(clientName)}</a></p>`,
  );
}
