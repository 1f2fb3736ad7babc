// When the interaction or the browser session ran out mid-flow: never a dead end. The user can start
// the same authorization again, or go back to the application, which then receives an error it can act on
// — as a link in query mode, as a form (sent by the button, no script) in form_post mode.
import type { Brand } from '../../http/brand.js';
import { escapeHtml } from '../../http/html.js';
import { responseUrl, type AuthorizationResponse } from '../../oauth/authorize/redirect.js';
import { responseFields } from './form-post-page.js';
import { layout } from './layout.js';

function returnLink(returnTo: AuthorizationResponse, clientName: string): string {
  const label = `Return to ${escapeHtml(clientName)}`;
  if (returnTo.target.responseMode !== 'form_post') return `<p><a href="${escapeHtml(responseUrl(returnTo))}">${label}</a></p>`;
  return `<form method="post" action="${escapeHtml(returnTo.target.redirectUri)}">
${responseFields(returnTo)}
<button type="submit" class="secondary">${label}</button>
</form>`;
}

export function renderExpiredPage({
  brand,
  restartUrl,
  returnTo,
  clientName,
}: {
  brand: Brand;
  restartUrl: string;
  returnTo: AuthorizationResponse;
  clientName: string;
}): string {
  return layout(
    brand,
    'Sign-in expired',
    `<h1>This sign-in has expired</h1>
<p>It took too long, or your browser did not keep the sign-in cookie.</p>
<p><a class="button" href="${escapeHtml(restartUrl)}">Start again</a></p>
${returnLink(returnTo, clientName)}`,
  );
}
