// The demo's pages. Everything shown is escaped; the JSON blocks are the decoded tokens and the API's
// answer, which is the point of the demo — the raw tokens themselves never reach the browser.
import type { JWTPayload } from 'jose';
import type { Brand } from '../http/brand.js';
import { escapeHtml } from '../http/html.js';
import { pageLayout } from '../http/page-layout.js';

const json = (value: unknown) => `<pre>${escapeHtml(JSON.stringify(value, null, 2))}</pre>`;
const hidden = (csrf: string) => `<input type="hidden" name="csrf" value="${escapeHtml(csrf)}">`;

export function renderSignedOut({ brand, noUsersYet }: { brand: Brand; noUsersYet: boolean }): string {
  const hint = noUsersYet
    ? `<p class="error" role="status">Nobody can sign in yet: there is no user account. Create one with the CLI, then come back:</p>
<pre>npx gatehouse users create --username alice --password 'choose-a-long-password' --name 'Alice Example'</pre>`
    : `<p class="muted">No account yet? Create one with <code>npx gatehouse users create --username alice --password …</code></p>`;
  return pageLayout(
    brand,
    'Demo application',
    `<h1>Demo application</h1>
<p>This small application signs you in with ${escapeHtml(brand.name)} the way a real web application would: the
authorization code flow with PKCE, as a confidential client. The tokens stay on the server; your browser only holds
a session cookie.</p>
${hint}
<div class="actions"><a class="button" href="/demo/login">Sign in</a><a class="button secondary" href="/">Home</a></div>`,
    { wide: true },
  );
}

export interface SignedInPage {
  brand: Brand;
  csrf: string;
  idClaims: JWTPayload;
  accessClaims: JWTPayload | undefined;
  hasRefreshToken: boolean;
  api: { path: string; status: number; body: unknown } | { path: string; error: string };
  notice?: string | undefined;
}

export function renderSignedIn(page: SignedInPage): string {
  const who = page.idClaims.name ?? page.idClaims.preferred_username ?? page.idClaims.sub;
  const api =
    'error' in page.api ? `<p class="error">${escapeHtml(page.api.error)}</p>` : `<p>Status <strong>${page.api.status}</strong></p>${json(page.api.body)}`;
  return pageLayout(
    page.brand,
    'Demo application',
    `<h1>Signed in as ${escapeHtml(String(who))}</h1>
${page.notice ? `<p role="status" class="notice">${escapeHtml(page.notice)}</p>` : ''}
<p class="muted">The tokens below stay on the demo's server. Your browser holds only an HttpOnly session cookie.</p>
<h2>ID token claims <span class="muted">(signature and claims verified)</span></h2>
${json(page.idClaims)}
<h2>Access token claims <span class="muted">(decoded; the API verifies it)</span></h2>
${page.accessClaims ? json(page.accessClaims) : '<p class="muted">The access token is not a JWT.</p>'}
<h2>The API answers <code>GET ${escapeHtml(page.api.path)}</code></h2>
${api}
<div class="actions">
<form class="inline" method="post" action="/demo/refresh">${hidden(page.csrf)}<button type="submit" name="action" value="refresh"${page.hasRefreshToken ? '' : ' disabled'}>Refresh tokens</button></form>
<form class="inline" method="post" action="/demo/logout">${hidden(page.csrf)}<button type="submit" name="action" value="logout" class="secondary">Sign out</button></form>
</div>`,
    { wide: true },
  );
}
