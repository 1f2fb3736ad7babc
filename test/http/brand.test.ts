// Branding by configuration: strictly validated (the colour is written into CSS, the logo into an img
// src and the CSP), and shown on every page — home, login, error — through brand.css, never inline style.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseConfig } from '../../src/config.js';
import { startTestApp } from '../helpers/app.js';
import { createClient } from '../helpers/oauth-fixtures.js';
import { authorizeQuery } from '../interaction/browserless.js';
import { Browser } from '../helpers/browser.js';

test('BRAND_ACCENT_COLOR accepts only #rgb or #rrggbb, so nothing can be injected into the stylesheet', () => {
  assert.equal(parseConfig({ BRAND_ACCENT_COLOR: '#0F766E' }).BRAND_ACCENT_COLOR, '#0f766e');
  assert.equal(parseConfig({ BRAND_ACCENT_COLOR: '#abc' }).BRAND_ACCENT_COLOR, '#abc');
  for (const bad of ['red', '#12345', '#1234567', '#abc; } body { display:none', 'url(https://evil.example/x)', '#abc\n}', 'expression(alert(1))', '#abcd']) {
    assert.throws(() => parseConfig({ BRAND_ACCENT_COLOR: bad }), /BRAND_ACCENT_COLOR must be a hex colour/, bad);
  }
});

test('BRAND_LOGO_URL must be an https URL or a path on this server', () => {
  assert.equal(parseConfig({ BRAND_LOGO_URL: 'https://cdn.example.com/logo.svg' }).BRAND_LOGO_URL, 'https://cdn.example.com/logo.svg');
  assert.equal(parseConfig({ BRAND_LOGO_URL: '/static/logo.png' }).BRAND_LOGO_URL, '/static/logo.png');
  for (const bad of [
    'http://cdn.example.com/logo.svg',
    'javascript:alert(1)',
    'data:image/svg+xml,<svg>',
    '//evil.example/logo.png',
    'logo.png',
    '/a" onerror="x',
    'https://user:pw@cdn.example.com/x.png',
  ]) {
    assert.throws(() => parseConfig({ BRAND_LOGO_URL: bad }), /BRAND_LOGO_URL must be an https URL or a path/, bad);
  }
});

test('BRAND_NAME refuses control characters and over-long names', () => {
  assert.equal(parseConfig({ BRAND_NAME: '  Acme ID  ' }).BRAND_NAME, 'Acme ID');
  assert.throws(() => parseConfig({ BRAND_NAME: 'Acme\nID' }), /BRAND_NAME/);
  assert.throws(() => parseConfig({ BRAND_NAME: 'x'.repeat(61) }), /BRAND_NAME/);
});

test('the brand name, logo and accent colour appear on the home, login and error pages, with the logo origin allowed by img-src', async () => {
  const t = await startTestApp({
    env: { BRAND_NAME: 'Acme <ID>', BRAND_LOGO_URL: 'https://cdn.example.com/acme.svg', BRAND_ACCENT_COLOR: '#0f766e' },
  });
  try {
    const css = await fetch(`${t.url}/assets/brand.css`);
    assert.match(css.headers.get('content-type') ?? '', /^text\/css/);
    assert.equal(await css.text(), ':root { --accent: #0f766e; }\n');

    const { client } = await createClient(t.core.db, t.core.clock, { skipConsent: false });
    const browser = new Browser(t.url);
    const toLogin = await browser.get(authorizeQuery(client.id, client.redirectUris[0]!));
    const pages = {
      home: await fetch(`${t.url}/`),
      login: await browser.get(toLogin.headers.get('location')!),
      error: await fetch(`${t.url}/authorize?client_id=nobody`),
    };
    for (const [name, response] of Object.entries(pages)) {
      const html = await response.text();
      assert.match(html, /Acme &lt;ID&gt;/, `${name}: the name, escaped`);
      assert.match(html, /<img class="logo" src="https:\/\/cdn\.example\.com\/acme\.svg" alt="">/, name);
      assert.match(html, /href="\/assets\/brand\.css"/, name);
      assert.doesNotMatch(html, /style=/, `${name}: no inline style`);
      const csp = response.headers.get('content-security-policy') ?? '';
      assert.match(csp, /img-src 'self' https:\/\/cdn\.example\.com;/, name);
      assert.match(csp, /style-src 'self';/, name);
    }
  } finally {
    await t.close();
  }
});
