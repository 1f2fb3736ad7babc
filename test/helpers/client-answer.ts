// The answer to the client at the end of a sign-in, the one way tests read it. After a navigation (a GET:
// /authorize with a session, prompt=none, the upstream's callback) it is a 303 whose Location is the
// redirect. After a form of ours (a POST: password, second factor, consent) it is the hand-over page
// (src/interaction/pages/hand-over-page.ts): a 200 page whose meta refresh and Continue link both go to the
// redirect. Which one is expected follows from the request (a Browser remembers each response's method), or
// the test says it; the helper checks the answer is exactly that — for the page:
// its status, its headers (never cached, no referrer, never framed, form-action 'self' alone) and one refresh
// and one link to the same place — before returning where the browser goes.
import assert from 'node:assert/strict';
import { methodOf } from './browser.js';

/** `hand-over`: the page (after a form POST of ours); `redirect`: a 303 (after a GET, or the client's own POST /authorize). */
export type AnswerKind = 'hand-over' | 'redirect';

const unescapeHtml = (s: string) =>
  s
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&');

/** Where the hand-over page sends the browser, once the page is checked to be exactly the hand-over page. */
export function handOverTarget(response: Response, html: string): URL {
  assert.equal(response.status, 200, 'the hand-over page is a 200 page');
  assert.equal(response.headers.get('cache-control'), 'no-store', 'the hand-over page (it carries the code) is never cached');
  assert.equal(response.headers.get('referrer-policy'), 'no-referrer', 'the hand-over page sends no referrer');
  const csp = response.headers.get('content-security-policy') ?? '';
  assert.match(csp, /frame-ancestors 'none'/, 'the hand-over page is never framed');
  assert.match(csp, /form-action 'self';/, "the hand-over page's form-action is 'self' alone");
  assert.doesNotMatch(html, /<script/i, 'the hand-over page runs no script');
  const refreshes = [...html.matchAll(/<meta http-equiv="refresh" content="0; url=([^"]*)">/g)];
  assert.equal(refreshes.length, 1, 'the hand-over page has exactly one meta refresh');
  const links = [...html.matchAll(/<a class="button" href="([^"]*)">Continue<\/a>/g)];
  assert.equal(links.length, 1, 'the hand-over page has exactly one Continue link');
  const target = unescapeHtml(refreshes[0]![1]!);
  assert.equal(unescapeHtml(links[0]![1]!), target, 'the refresh and the Continue link go to the same place');
  return new URL(target, response.url);
}

/** Where the answer sends the browser: the 303's Location, or the hand-over page's target (see the file comment). */
export async function clientAnswer(response: Response, expected?: AnswerKind): Promise<URL> {
  const method = methodOf.get(response);
  const kind = expected ?? (method === 'POST' ? 'hand-over' : method === 'GET' ? 'redirect' : response.status === 303 ? 'redirect' : 'hand-over');
  if (kind === 'redirect') {
    assert.equal(response.status, 303, 'the answer after a navigation is a 303');
    const location = response.headers.get('location');
    assert.ok(location, 'the 303 names where to go');
    return new URL(location, response.url);
  }
  return handOverTarget(response, await response.text());
}
