// A minimal browser for HTTP-level tests of the login pages: a cookie jar, manual redirects and a
// parser for our forms (action + hidden inputs). Not a test file itself.
import { createHash, randomBytes } from 'node:crypto';
import type { Clock } from '../../src/clock.js';
import { hashPassword } from '../../src/crypto/passwords.js';
import type { Db } from '../../src/storage/database.js';
import { usersRepository, type User } from '../../src/storage/users-repository.js';

export class Browser {
  readonly cookies = new Map<string, string>();
  constructor(readonly base: string) {}

  cookieHeader(): string {
    return [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
  }

  private remember(response: Response): void {
    for (const line of response.headers.getSetCookie()) {
      const [pair] = line.split(';');
      const at = pair!.indexOf('=');
      const name = pair!.slice(0, at).trim();
      const value = pair!.slice(at + 1).trim();
      if (value === '' || /max-age=0/i.test(line) || /expires=Thu, 01 Jan 1970/i.test(line)) this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
  }

  async get(path: string, headers: Record<string, string> = {}): Promise<Response> {
    const response = await fetch(new URL(path, this.base), { redirect: 'manual', headers: { cookie: this.cookieHeader(), ...headers } });
    this.remember(response);
    return response;
  }

  async post(path: string, form: Record<string, string>, headers: Record<string, string> = {}): Promise<Response> {
    const response = await fetch(new URL(path, this.base), {
      method: 'POST',
      redirect: 'manual',
      headers: { cookie: this.cookieHeader(), 'content-type': 'application/x-www-form-urlencoded', ...headers },
      body: new URLSearchParams(form).toString(),
    });
    this.remember(response);
    return response;
  }
}

export interface ParsedForm {
  action: string;
  hidden: Record<string, string>;
}

const unescapeHtml = (s: string) => s.replace(/&quot;/g, '"').replace(/&#39;/g, "'").replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&');

export function parseForm(html: string): ParsedForm {
  const action = /<form method="post" action="([^"]+)"/.exec(html)?.[1];
  if (!action) throw new Error(`no form in page: ${html.slice(0, 300)}`);
  const hidden: Record<string, string> = {};
  for (const m of html.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g)) hidden[unescapeHtml(m[1]!)] = unescapeHtml(m[2]!);
  return { action: unescapeHtml(action), hidden };
}

export const PASSWORD = 'correct horse battery staple';

export async function createUserWithPassword(db: Db, clock: Clock, username = `user-${randomBytes(4).toString('hex')}`): Promise<User> {
  return usersRepository(db, clock).create({ username, passwordHash: await hashPassword(PASSWORD), name: 'Test User' });
}

/** RFC 7636 Appendix B. */
export const RFC7636 = { verifier: 'dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk', challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM' } as const;

export const challengeOf = (verifier: string): string => createHash('sha256').update(verifier).digest('base64url');

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
export async function loginAndConsent(
  browser: Browser,
  authorizePath: string,
  user: { username: string },
  decision: 'allow' | 'deny' = 'allow',
): Promise<URL> {
  let response = await browser.get(authorizePath);
  for (let i = 0; i < 6; i++) {
    if (response.status !== 303) throw new Error(`expected 303, got ${response.status}: ${await response.text()}`);
    const location = new URL(response.headers.get('location')!, browser.base);
    if (location.origin !== new URL(browser.base).origin) return location;
    response = await browser.get(location.pathname + location.search);
    if (response.status === 200) {
      const html = await response.text();
      const form = parseForm(html);
      const fields = html.includes('name="password"')
        ? { ...form.hidden, username: user.username, password: PASSWORD }
        : { ...form.hidden, decision };
      response = await browser.post(form.action, fields);
    }
  }
  throw new Error('flow did not reach the client');
}

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

export const submitLogin = (browser: Browser, form: ParsedForm, username: string, password = PASSWORD, headers: Record<string, string> = {}): Promise<Response> =>
  browser.post(form.action, { ...form.hidden, username, password }, headers);

/** These tests are about the pages, not load shedding: a busy shared machine must not turn answers into 503s. */
export const PAGES_TEST_ENV = { OVERLOAD_MAX_EVENT_LOOP_DELAY: '0' } as const;
