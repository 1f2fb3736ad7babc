// RFC 9700 4.1.3 / RFC 6749 3.1.2: redirect_uri is compared as an exact string; anything else is an
// error page (no redirect), and the registered URI's own query survives on the way back.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestApp, type TestApp } from '../../helpers/app.js';
import { createClient } from '../../helpers/oauth-fixtures.js';
import { authorizeQuery, loginAndConsent } from '../../interaction/browserless.js';
import type { Client } from '../../../src/storage/repositories/clients-repository.js';
import type { User } from '../../../src/storage/repositories/users-repository.js';
import { assertErrorPage } from './assertions.js';
import { Browser } from '../../helpers/browser.js';
import { createUser, SIGN_IN } from '../../helpers/users.js';

const REG = 'https://client.example/cb';
const REG_WITH_QUERY = 'https://client.example/cb2?x=1';

describe('authorize: redirect_uri exact matching', () => {
  let t: TestApp;
  let client: Client;
  let user: User;
  before(async () => {
    t = await startTestApp();
    client = (await createClient(t.core.db, t.core.clock, { redirectUris: [REG, REG_WITH_QUERY] })).client;
    user = await createUser(t.core.db, t.core.clock, SIGN_IN);
  });
  after(() => t.close());

  const variants: Record<string, string> = {
    'scheme changed to http': 'http://client.example/cb',
    'host in upper case': 'https://CLIENT.EXAMPLE/cb',
    'explicit default port': 'https://client.example:443/cb',
    'another port': 'https://client.example:8443/cb',
    subdomain: 'https://sub.client.example/cb',
    'suffix domain': 'https://client.example.evil.example/cb',
    'trailing slash': 'https://client.example/cb/',
    'path prefix match': 'https://client.example/cbx',
    'path case changed': 'https://client.example/CB',
    'dot segments': 'https://client.example/cb/../cb',
    'encoded dots and slash': 'https://client.example/cb%2f..',
    'encoded dot segment': 'https://client.example/%2e%2e/cb',
    'double encoding': 'https://client.example/cb%252f..',
    'userinfo in authority': 'https://client.example@evil.example/cb',
    'userinfo prefix': 'https://user@client.example/cb',
    'fragment appended': 'https://client.example/cb#frag',
    'extra query parameter': 'https://client.example/cb?y=2',
    'registered query altered': 'https://client.example/cb2?x=2',
    'registered query dropped': 'https://client.example/cb2',
  };
  for (const [name, uri] of Object.entries(variants)) {
    test(`redirect_uri with ${name} gets the error page, no redirect`, async () => {
      const response = await fetch(t.url + authorizeQuery(client.id, uri), { redirect: 'manual' });
      const html = await assertErrorPage(response);
      assert.doesNotMatch(html, /evil\.example/);
    });
  }

  test('missing redirect_uri gets the error page (OIDC requires it)', async () => {
    await assertErrorPage(await fetch(t.url + authorizeQuery(client.id, '', { redirect_uri: undefined }), { redirect: 'manual' }));
  });

  test('duplicate redirect_uri gets the error page', async () => {
    await assertErrorPage(await fetch(`${t.url}${authorizeQuery(client.id, REG)}&redirect_uri=${encodeURIComponent(REG)}`, { redirect: 'manual' }));
  });

  test('unknown client_id gets the error page, never a redirect', async () => {
    await assertErrorPage(await fetch(t.url + authorizeQuery('no-such-client', REG), { redirect: 'manual' }));
  });

  test('missing or duplicate client_id gets the error page', async () => {
    await assertErrorPage(await fetch(t.url + authorizeQuery('', REG), { redirect: 'manual' }));
    await assertErrorPage(await fetch(`${t.url}${authorizeQuery(client.id, REG)}&client_id=${client.id}`, { redirect: 'manual' }));
  });

  test('the error page escapes reflected input and sends page security headers', async () => {
    const response = await fetch(t.url + authorizeQuery('<script>alert(1)</script>', REG), { redirect: 'manual' });
    const html = await assertErrorPage(response);
    assert.doesNotMatch(html, /<script>/);
    assert.equal(response.headers.get('cache-control'), 'no-store');
  });

  test('a registered redirect_uri with a query is kept unchanged and code and state are appended', async () => {
    const location = await loginAndConsent(new Browser(t.url), authorizeQuery(client.id, REG_WITH_QUERY), user);
    assert.ok(location.href.startsWith(`${REG_WITH_QUERY}&`), location.href);
    assert.equal(location.searchParams.get('x'), '1');
    assert.ok(location.searchParams.get('code'));
    assert.equal(location.searchParams.get('state'), 'state-123');
  });
});
