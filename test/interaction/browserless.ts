// The page flow without a browser, on top of test/helpers/browser.ts: the /authorize URL with the RFC 7636
// example PKCE pair, login and consent walked to the client's redirect, the login page opened. Not a test file.
import { type Browser, parseForm, type ParsedForm } from '../helpers/browser.js';
import { RFC7636 } from '../helpers/pkce.js';
import { PASSWORD } from '../helpers/users.js';
import { browserlessLogin } from '../helpers/browserless-login.js';

export function authorizeQuery(clientId: string, redirectUri: string, extra: Record<string, string | undefined> = {}): string {
  const params: Record<string, string | undefined> = {
    response_type: 'code',
    client_id: clientId,
    redirect_uri: redirectUri,
    scope: 'openid profile',
    state: 'state-123',
    nonce: 'nonce-456',
    code_challenge: RFC7636.challenge,
    code_challenge_method: 'S256',
    ...extra,
  };
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined) q.append(k, v);
  return `/authorize?${q.toString()}`;
}

/** Walks GET /authorize → login → (consent) and returns the final redirect Location to the client. */
export const loginAndConsent = (browser: Browser, authorizePath: string, user: { username: string }, decision: 'allow' | 'deny' = 'allow'): Promise<URL> =>
  browserlessLogin(new URL(authorizePath, browser.base), { username: user.username, decision, browser });

/** GET /authorize and follow to the page it leads to (login or consent). */
export async function openInteraction(browser: Browser, authorizePath: string): Promise<{ response: Response; html: string; form: ParsedForm; path: string }> {
  const first = await browser.get(authorizePath);
  if (first.status !== 303) throw new Error(`expected 303 from /authorize, got ${first.status}`);
  const path = first.headers.get('location')!;
  if (!path.startsWith('/interaction/')) throw new Error(`expected an interaction page, got ${path}`);
  const response = await browser.get(path);
  const html = await response.text();
  return { response, html, form: parseForm(html), path };
}

export const submitLogin = (
  browser: Browser,
  form: ParsedForm,
  username: string,
  password = PASSWORD,
  headers: Record<string, string> = {},
): Promise<Response> => browser.post(form.action, { ...form.hidden, username, password }, headers);
