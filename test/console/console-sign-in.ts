// Signs a user in to the admin console's built-in client without a browser (test/helpers/browser.ts): the
// /authorize URL the console builds (code + PKCE, scope openid admin:read admin:write, acr_values when asked),
// the password page, the second-factor page when the account has one, then the code exchange at /token as
// the console's page does it. Not a test file; the browser tests sign in through the console itself.
import { Browser, parseForm } from '../helpers/browser.js';
import { handOverTarget } from '../helpers/client-answer.js';
import { RFC7636 } from '../helpers/pkce.js';
import { PASSWORD } from '../helpers/users.js';
import { totpAt } from '../helpers/totp.js';
import { authorizeQuery } from '../interaction/browserless.js';
import { CONSOLE_CLIENT_ID, CONSOLE_SCOPES, consoleRedirectUri } from '../../src/oauth/clients/console-client.js';
import { ACR_MFA } from '../../src/oauth/issued-tokens/authentication-context.js';
import type { TestApp } from '../helpers/app.js';

export interface ConsoleSignIn {
  status: number;
  body: Record<string, unknown>;
}

/** Walks to the console's redirect URI and exchanges its code; `totpSecret` answers the second-factor page. */
export async function consoleSignIn(
  t: TestApp,
  user: { username: string },
  options: { totpSecret?: string; stepUp?: boolean; scope?: string } = {},
): Promise<ConsoleSignIn> {
  const browser = new Browser(t.url);
  const redirectUri = consoleRedirectUri(t.url);
  const authorize = authorizeQuery(CONSOLE_CLIENT_ID, redirectUri, {
    scope: options.scope ?? CONSOLE_SCOPES.join(' '),
    ...(options.stepUp ? { acr_values: ACR_MFA } : {}),
  });
  let next: { url: URL; form?: Record<string, string> } = { url: new URL(authorize, t.url) };
  for (let step = 0; step < 8; step++) {
    const response = next.form ? await browser.post(next.url, next.form) : await browser.get(next.url);
    const location = response.headers.get('location');
    if (response.status === 303 && location) {
      const target = new URL(location, next.url);
      if (target.href.startsWith(redirectUri)) return exchange(t, target);
      next = { url: target };
      continue;
    }
    const html = await response.text();
    if (response.status !== 200) throw new Error(`unexpected ${response.status} at ${next.url.pathname}: ${html.slice(0, 300)}`);
    // After a form of ours, the answer to the console is the hand-over page (test/helpers/client-answer.ts).
    if (/<meta http-equiv="refresh"/.test(html)) {
      const target = handOverTarget(response, html);
      if (target.href.startsWith(redirectUri)) return exchange(t, target);
      next = { url: target };
      continue;
    }
    const form = parseForm(html);
    if (/name="password"/.test(html)) next = { url: new URL(form.action, next.url), form: { ...form.hidden, username: user.username, password: PASSWORD } };
    else if (/name="otp"/.test(html) && options.totpSecret)
      next = { url: new URL(form.action, next.url), form: { ...form.hidden, otp: totpAt(options.totpSecret, t.core.clock.now()) } };
    else throw new Error(`no way on from ${next.url.pathname}: ${html.slice(0, 300)}`);
  }
  throw new Error('the flow never reached the console');
}

async function exchange(t: TestApp, redirect: URL): Promise<ConsoleSignIn> {
  const error = redirect.searchParams.get('error');
  if (error) return { status: 0, body: { error, error_description: redirect.searchParams.get('error_description') } };
  const response = await fetch(`${t.url}/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      grant_type: 'authorization_code',
      code: redirect.searchParams.get('code')!,
      redirect_uri: consoleRedirectUri(t.url),
      client_id: CONSOLE_CLIENT_ID,
      code_verifier: RFC7636.verifier,
    }),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}
