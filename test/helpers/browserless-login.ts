// Drives the real login and consent pages without a browser: fetch with a cookie jar, following
// /authorize's redirects, reading each page's form (`action` and every hidden input), posting the
// credentials, then `decision=allow` (or deny). Returns the redirect to the client's redirect_uri.
import type { Clock } from '../../src/clock.js';
import { hashPassword } from '../../src/crypto/passwords.js';
import type { Db } from '../../src/storage/database.js';
import { usersRepository, type User, type UserProfile } from '../../src/storage/users-repository.js';
import { fullProfile } from './oauth-fixtures.js';

export const LOGIN_PASSWORD = 'correct horse battery staple';

export async function createLoginUser(db: Db, clock: Clock, profile: Partial<UserProfile> = fullProfile): Promise<User> {
  const username = `login-${Math.random().toString(36).slice(2, 10)}`;
  return usersRepository(db, clock).create({ username, passwordHash: await hashPassword(LOGIN_PASSWORD), ...profile });
}

class CookieJar {
  readonly #cookies = new Map<string, string>();

  header(): string {
    return [...this.#cookies].map(([name, value]) => `${name}=${value}`).join('; ');
  }

  remember(response: Response): void {
    for (const line of response.headers.getSetCookie()) {
      const pair = line.split(';')[0]!;
      const at = pair.indexOf('=');
      const name = pair.slice(0, at).trim();
      const value = pair.slice(at + 1).trim();
      if (value === '' || /max-age=0/i.test(line)) this.#cookies.delete(name);
      else this.#cookies.set(name, value);
    }
  }
}

const unescapeHtml = (s: string) =>
  s.replace(/&quot;/g, '"').replace(/&#39;/g, "'").replace(/&#x27;/g, "'").replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&');

/** The page's post form: its action and every `<input type="hidden" name=".." value="..">`. */
export function readForm(html: string): { action: string; hidden: Record<string, string> } {
  const form = /<form\b[^>]*\baction="([^"]*)"/i.exec(html);
  if (!form) throw new Error(`no form on the page: ${html.slice(0, 300)}`);
  const hidden: Record<string, string> = {};
  for (const input of html.matchAll(/<input\b[^>]*>/gi)) {
    const tag = input[0];
    if (!/\btype="hidden"/i.test(tag)) continue;
    const name = /\bname="([^"]*)"/i.exec(tag)?.[1];
    const value = /\bvalue="([^"]*)"/i.exec(tag)?.[1] ?? '';
    if (name !== undefined) hidden[unescapeHtml(name)] = unescapeHtml(value);
  }
  return { action: unescapeHtml(form[1]!), hidden };
}

export interface LoginOptions {
  username: string;
  password?: string;
  decision?: 'allow' | 'deny';
  jar?: CookieJar;
}

export const newCookieJar = (): CookieJar => new CookieJar();

/** Follows the authorization URL through login and consent; returns the URL the server redirects the client to. */
export async function browserlessLogin(authorizationUrl: URL | string, options: LoginOptions): Promise<URL> {
  const jar = options.jar ?? new CookieJar();
  const server = new URL(authorizationUrl).origin;
  let next: { url: URL; form?: Record<string, string> } = { url: new URL(authorizationUrl) };
  for (let step = 0; step < 12; step++) {
    const response = await fetch(next.url, {
      redirect: 'manual',
      method: next.form ? 'POST' : 'GET',
      headers: { cookie: jar.header(), ...(next.form ? { 'content-type': 'application/x-www-form-urlencoded' } : {}) },
      ...(next.form ? { body: new URLSearchParams(next.form) } : {}),
    });
    jar.remember(response);
    const location = response.headers.get('location');
    if (response.status >= 300 && response.status < 400 && location) {
      const target = new URL(location, next.url);
      if (target.origin !== server) return target;
      next = { url: target };
      continue;
    }
    if (response.status !== 200) throw new Error(`unexpected ${response.status} at ${next.url.pathname}: ${(await response.text()).slice(0, 300)}`);
    const html = await response.text();
    const form = readForm(html);
    const fields = /name="password"/.test(html)
      ? { ...form.hidden, username: options.username, password: options.password ?? LOGIN_PASSWORD }
      : { ...form.hidden, decision: options.decision ?? 'allow' };
    next = { url: new URL(form.action, next.url), form: fields };
  }
  throw new Error('the flow never reached the client');
}
