// Drives the real login and consent pages without a browser (test/helpers/browser.ts), following /authorize's
// redirects, reading each page's form (`action` and every hidden input), posting the credentials, then
// `decision=allow` (or deny). Returns where the server sends the browser to the client's redirect_uri (a
// 303, or the hand-over page after a form). The one implementation of
// that walk: test/interaction/browserless.ts's loginAndConsent is this with a path on the browser's server.
import { Browser, parseForm } from './browser.js';
import { handOverTarget } from './client-answer.js';
import { PASSWORD } from './users.js';

export interface LoginOptions {
  username: string;
  password?: string;
  decision?: 'allow' | 'deny';
  browser?: Browser;
  /** Sees every page of the walk (to read what the consent page says). */
  onPage?: (html: string) => void;
}

/** Follows the authorization URL through login and consent; returns the URL the server sends the browser to at the client. */
export async function browserlessLogin(authorizationUrl: URL | string, options: LoginOptions): Promise<URL> {
  const server = new URL(authorizationUrl).origin;
  const browser = options.browser ?? new Browser(server);
  let next: { url: URL; form?: Record<string, string> } = { url: new URL(authorizationUrl) };
  for (let step = 0; step < 12; step++) {
    const response = next.form ? await browser.post(next.url, next.form) : await browser.get(next.url);
    const location = response.headers.get('location');
    // Every redirect of the flow is 303 See Other (a form post must not be repeated as a POST).
    if (response.status >= 300 && response.status < 400 && response.status !== 303)
      throw new Error(`expected 303, got ${response.status} at ${next.url.pathname}`);
    if (response.status === 303 && location) {
      const target = new URL(location, next.url);
      if (target.origin !== server) return target;
      next = { url: target };
      continue;
    }
    if (response.status !== 200) throw new Error(`unexpected ${response.status} at ${next.url.pathname}: ${(await response.text()).slice(0, 300)}`);
    const html = await response.text();
    // After a form of ours, the answer to the client is the hand-over page (test/helpers/client-answer.ts).
    if (/<meta http-equiv="refresh"/.test(html)) {
      const target = handOverTarget(response, html);
      if (target.origin !== server) return target;
      next = { url: target };
      continue;
    }
    options.onPage?.(html);
    const form = parseForm(html);
    const fields = /name="password"/.test(html)
      ? { ...form.hidden, username: options.username, password: options.password ?? PASSWORD }
      : { ...form.hidden, decision: options.decision ?? 'allow' };
    next = { url: new URL(form.action, next.url), form: fields };
  }
  throw new Error('the flow never reached the client');
}
