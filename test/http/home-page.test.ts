// GET / — the newcomer's first page: HTML in the pages' frame, with the way to the docs, discovery,
// the keys and (when served) the demo; under the same strict CSP as the login pages.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestApp } from '../helpers/app.js';

test('GET / answers an HTML home page linking the docs, discovery, JWKS and the demo', async () => {
  const t = await startTestApp({ env: { DEMO_ENABLED: 'true' } });
  try {
    const response = await fetch(`${t.url}/`);
    assert.equal(response.status, 200);
    assert.match(response.headers.get('content-type') ?? '', /^text\/html/);
    assert.match(response.headers.get('content-security-policy') ?? '', /default-src 'none'; style-src 'self'; img-src 'self';/);
    assert.equal(response.headers.get('x-frame-options'), 'DENY');
    const html = await response.text();
    for (const href of ['/docs', '/.well-known/openid-configuration', '/.well-known/jwks.json', '/demo'])
      assert.match(html, new RegExp(`href="${href.replace(/\./g, '\\.')}"`), href);
    assert.match(html, /<link rel="stylesheet" href="\/assets\/brand\.css">/);
    assert.doesNotMatch(html, /<script/i);
  } finally {
    await t.close();
  }
});

test('the home page does not link the demo when the demo is off', async () => {
  const t = await startTestApp({ env: { DEMO_ENABLED: 'false' } });
  try {
    const html = await (await fetch(`${t.url}/`)).text();
    assert.doesNotMatch(html, /href="\/demo"/);
    assert.match(html, /href="\/docs"/);
  } finally {
    await t.close();
  }
});
