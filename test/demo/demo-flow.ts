// Drives the demo application over HTTP with the Browser helper (cookie jar, manual redirects): start at
// /demo/login, sign in and consent on the real pages, and stop at the callback or follow it home.
import assert from 'node:assert/strict';
import { type Browser, parseForm } from '../helpers/browser.js';
import { handOverTarget } from '../helpers/client-answer.js';
import { PASSWORD } from '../helpers/users.js';

export const DEMO_COOKIE = 'gatehouse_demo';

export const location = (response: Response): string => {
  const value = response.headers.get('location');
  assert.ok(value, `expected a redirect, got ${response.status}`);
  return value;
};

/** Signs in through the demo up to the redirect back to /demo/callback (consent when asked); returns that URL. */
export async function signInUntilCallback(browser: Browser, username: string): Promise<URL> {
  let response = await browser.get('/demo/login');
  assert.equal(response.status, 303);
  for (let step = 0; step < 10; step++) {
    if (response.status === 302 || response.status === 303) {
      const next = new URL(location(response), browser.base);
      if (next.pathname === '/demo/callback') return next;
      response = await browser.get(next.href);
      continue;
    }
    const html = await response.text();
    assert.equal(response.status, 200, html);
    // After a form of ours, the answer to the demo is the hand-over page (test/helpers/client-answer.ts).
    if (/<meta http-equiv="refresh"/.test(html)) {
      const next = handOverTarget(response, html);
      if (next.pathname === '/demo/callback') return next;
      response = await browser.get(next.href);
      continue;
    }
    const form = parseForm(html);
    const fields: Record<string, string> = html.includes('name="password"') ? { username, password: PASSWORD } : { decision: 'allow' };
    response = await browser.post(form.action, { ...form.hidden, ...fields });
  }
  throw new Error('the sign-in did not come back to the demo');
}

export async function signIn(browser: Browser, username: string): Promise<string> {
  const callback = await signInUntilCallback(browser, username);
  const landed = await browser.get(callback.pathname + callback.search);
  assert.equal(landed.status, 303, await landed.clone().text());
  assert.equal(location(landed), '/demo');
  const page = await browser.get('/demo');
  assert.equal(page.status, 200);
  return page.text();
}

/** The CSRF token of the demo page's forms. */
export const csrfOf = (html: string): string => /name="csrf" value="([^"]+)"/.exec(html)![1]!;
