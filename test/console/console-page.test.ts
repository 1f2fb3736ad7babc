// The console's shell and files over HTTP (src/console/index.ts): a strict CSP with no inline script, every
// console path answered by the one shell (the front end routes), only files under console/ served.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestApp, type TestApp } from '../helpers/app.js';

let t: TestApp;
before(async () => {
  t = await startTestApp();
});
after(() => t.close());

test('the console page has a strict CSP (script-src self, no inline script, no framing) and loads only its own files', async () => {
  for (const path of ['/console/', '/console/users/some-id', '/console/callback?code=x&state=y']) {
    const response = await fetch(`${t.url}${path}`);
    assert.equal(response.status, 200, path);
    const csp = response.headers.get('content-security-policy') ?? '';
    assert.match(csp, /script-src 'self';/);
    assert.match(csp, /default-src 'none'/);
    assert.match(csp, /frame-ancestors 'none'/);
    assert.doesNotMatch(csp, /unsafe-inline|unsafe-eval/);
    const html = await response.text();
    assert.deepEqual(
      [...html.matchAll(/<script\b[^>]*>/g)].map((m) => m[0]),
      ['<script type="module" src="/console/assets/app.js">'],
      'one external script, no inline one',
    );
    assert.doesNotMatch(html, /https?:\/\/(?!127\.0\.0\.1)/, 'no third-party origin (no CDN)');
  }
  assert.equal((await fetch(`${t.url}/console`, { redirect: 'manual' })).headers.get('location'), '/console/');
});

test('console assets: its scripts and stylesheet are served, nothing else (no path outside console/)', async () => {
  const script = await fetch(`${t.url}/console/assets/pages/users.js`);
  assert.equal(script.status, 200);
  assert.match(script.headers.get('content-type') ?? '', /^text\/javascript/);
  assert.equal(script.headers.get('x-content-type-options'), 'nosniff');
  for (const path of ['/console/assets/../package.json', '/console/assets/%2e%2e/package.json', '/console/assets/nothing.js', '/console/assets/']) {
    const response = await fetch(`${t.url}${path}`);
    const body = await response.text();
    // A path that leaves assets/ is the shell (a console route) or 404, never a file from elsewhere.
    assert.ok(response.status === 404 || body.startsWith('<!doctype html>'), `${path}: ${response.status}`);
    assert.doesNotMatch(body, /"name": "gatehouse"/, path);
  }
});
