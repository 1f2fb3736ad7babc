// /authorize parameter rules once client and redirect_uri are trusted: every error is a 303 redirect to
// the client with error, error_description (safe characters), state and iss — never a code.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestApp, type TestApp } from '../../helpers/app.js';
import { createClient } from '../../helpers/oauth-fixtures.js';
import { authorizeQuery, loginAndConsent } from '../../interaction/browserless.js';
import type { Client } from '../../../src/storage/repositories/clients-repository.js';
import type { User } from '../../../src/storage/repositories/users-repository.js';
import { assertErrorRedirect, SAFE_DESCRIPTION } from './assertions.js';
import { Browser } from '../../helpers/browser.js';
import { RFC7636 } from '../../helpers/pkce.js';
import { createUser, SIGN_IN } from '../../helpers/users.js';

const REG = 'https://client.example/cb';

describe('authorize: request parameters', () => {
  let t: TestApp;
  let client: Client;
  let ccOnly: Client;
  let user: User;
  before(async () => {
    t = await startTestApp();
    client = (await createClient(t.core.db, t.core.clock, { redirectUris: [REG], scopes: ['openid', 'profile', 'email', 'orders:read'] })).client;
    ccOnly = (await createClient(t.core.db, t.core.clock, { redirectUris: [REG], grantTypes: ['client_credentials'] })).client;
    user = await createUser(t.core.db, t.core.clock, SIGN_IN);
  });
  after(() => t.close());

  const get = (extra: Record<string, string | undefined>, c: Client = client) => fetch(t.url + authorizeQuery(c.id, REG, extra), { redirect: 'manual' });
  const errorUrl = async (extra: Record<string, string | undefined>, error: string, state: string | null = 'state-123') =>
    assertErrorRedirect(await get(extra), { error, redirectUri: REG, state, issuer: t.url });
  const expectError = async (extra: Record<string, string | undefined>, error: string, state: string | null = 'state-123'): Promise<void> => {
    await errorUrl(extra, error, state);
  };

  // response_type (RFC 9700 2.1.2: only the code flow)
  for (const rt of ['token', 'code id_token', 'id_token', 'code token', 'foo']) {
    test(`response_type=${rt} is unsupported_response_type`, () => expectError({ response_type: rt }, 'unsupported_response_type'));
  }
  test('missing response_type is invalid_request', () => expectError({ response_type: undefined }, 'invalid_request'));
  test('a client not registered for authorization_code is unauthorized_client', async () => {
    assertErrorRedirect(await get({}, ccOnly), { error: 'unauthorized_client', redirectUri: REG, state: 'state-123', issuer: t.url });
  });

  // PKCE (RFC 7636 4.2, 4.4.1; S256 required of every client)
  test('missing code_challenge is invalid_request', () => expectError({ code_challenge: undefined }, 'invalid_request'));
  test('code_challenge_method=plain is invalid_request', () => expectError({ code_challenge_method: 'plain' }, 'invalid_request'));
  test('missing code_challenge_method is invalid_request (no plain default)', () => expectError({ code_challenge_method: undefined }, 'invalid_request'));
  test('code_challenge_method=S512 is invalid_request', () => expectError({ code_challenge_method: 'S512' }, 'invalid_request'));
  test('code_challenge_method in lower case is invalid_request', () => expectError({ code_challenge_method: 's256' }, 'invalid_request'));
  for (const [name, challenge] of Object.entries({
    '42 characters': RFC7636.challenge.slice(0, 42),
    '44 characters': `${RFC7636.challenge}A`,
    'standard base64 + and /': `+/${RFC7636.challenge.slice(2)}`,
    'padding =': `${RFC7636.challenge.slice(0, 42)}=`,
  })) {
    test(`code_challenge of ${name} is invalid_request`, () => expectError({ code_challenge: challenge }, 'invalid_request'));
  }
  test('the RFC 7636 Appendix B challenge is accepted', async () => {
    const location = await loginAndConsent(new Browser(t.url), authorizeQuery(client.id, REG, { code_challenge: RFC7636.challenge }), user);
    assert.ok(location.searchParams.get('code'));
  });

  // state (required: it binds the response to the browser session)
  test('missing state is invalid_request, with no state echoed', () => expectError({ state: undefined }, 'invalid_request', null));
  test('empty state is handled as absent: invalid_request', () => expectError({ state: '' }, 'invalid_request', null));

  // scope (RFC 6749 3.3)
  test('an unknown scope is invalid_scope', () => expectError({ scope: 'openid launch-missiles' }, 'invalid_scope'));
  test('a scope not registered for the client is invalid_scope', () => expectError({ scope: 'openid payments:write' }, 'invalid_scope'));
  test('missing scope is invalid_scope', () => expectError({ scope: undefined }, 'invalid_scope'));
  test('empty scope is handled as absent: invalid_scope', () => expectError({ scope: '' }, 'invalid_scope'));

  // duplicates, request objects, resource, nonce, prompt, max_age
  test('a duplicated parameter is invalid_request', async () => {
    const response = await fetch(`${t.url}${authorizeQuery(client.id, REG)}&scope=openid`, { redirect: 'manual' });
    assertErrorRedirect(response, { error: 'invalid_request', redirectUri: REG, state: 'state-123', issuer: t.url });
  });
  test('a duplicated state is invalid_request without echoing either value', async () => {
    const response = await fetch(`${t.url}${authorizeQuery(client.id, REG)}&state=other`, { redirect: 'manual' });
    assertErrorRedirect(response, { error: 'invalid_request', redirectUri: REG, state: null, issuer: t.url });
  });
  test('request (a request object) is request_not_supported', () => expectError({ request: 'eyJhbGciOiJub25lIn0.e30.' }, 'request_not_supported'));
  test('request_uri is request_uri_not_supported and never fetched', () =>
    expectError({ request_uri: 'https://evil.example/req' }, 'request_uri_not_supported'));
  test('a resource other than the API is invalid_target', () => expectError({ resource: 'https://other.example/api' }, 'invalid_target'));
  test('a nonce over 512 characters is invalid_request (never truncated)', () => expectError({ nonce: 'n'.repeat(513) }, 'invalid_request'));
  test('prompt=none combined with login is invalid_request', () => expectError({ prompt: 'none login' }, 'invalid_request'));
  test('an unknown prompt value is invalid_request', () => expectError({ prompt: 'sideways' }, 'invalid_request'));
  test('max_age that is not a non-negative integer is invalid_request', async () => {
    await expectError({ max_age: '-1' }, 'invalid_request');
    await expectError({ max_age: 'soon' }, 'invalid_request');
  });

  test('error_description carries only safe characters even when the input has markup and CRLF', async () => {
    const url = await errorUrl({ scope: 'openid <script>"x"\\\r\nSet-Cookie: a=b' }, 'invalid_scope');
    const description = url.searchParams.get('error_description') ?? '';
    assert.match(description, SAFE_DESCRIPTION);
    assert.doesNotMatch(description, /[<>]script|[\r\n"\\]/);
  });

  test('unknown parameters are ignored and accepted parameters do not disturb the flow', async () => {
    const extra = {
      extra: 'foobar',
      login_hint: user.username,
      ui_locales: 'se',
      claims_locales: 'se',
      display: 'popup',
      acr_values: '1 2',
      nonce: 'n'.repeat(384),
      resource: t.config.API_AUDIENCE,
      max_age: '10000',
      scope: 'profile openid',
    };
    const location = await loginAndConsent(new Browser(t.url), authorizeQuery(client.id, REG, extra), user);
    assert.ok(location.searchParams.get('code'));
    assert.equal(location.searchParams.get('state'), 'state-123');
  });

  test('POST /authorize with a form body succeeds like GET', async () => {
    const browser = new Browser(t.url);
    const query = new URL(t.url + authorizeQuery(client.id, REG)).searchParams;
    const response = await browser.post('/authorize', Object.fromEntries(query));
    assert.equal(response.status, 303);
    assert.match(response.headers.get('location') ?? '', /^\/interaction\//);
  });

  test('no Access-Control-Allow-Origin on /authorize, even for a foreign Origin', async () => {
    const response = await fetch(t.url + authorizeQuery(client.id, REG), { redirect: 'manual', headers: { origin: 'https://evil.example' } });
    assert.equal(response.headers.get('access-control-allow-origin'), null);
    const preflight = await fetch(`${t.url}/authorize`, {
      method: 'OPTIONS',
      headers: { origin: 'https://evil.example', 'access-control-request-method': 'GET' },
    });
    assert.equal(preflight.headers.get('access-control-allow-origin'), null);
    await preflight.body?.cancel();
  });

  test('no answer of the authorization endpoint puts tokens in the redirect', async () => {
    const location = await loginAndConsent(new Browser(t.url), authorizeQuery(client.id, REG), user);
    for (const name of ['access_token', 'id_token', 'token_type']) assert.equal(location.searchParams.get(name), null);
    assert.equal(location.hash, '');
  });
});
