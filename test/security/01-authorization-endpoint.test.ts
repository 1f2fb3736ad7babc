// Security suite, area 1: the authorization endpoint, black-box (RFC 6749 §3.1, §4.1; RFC 9700 §2.1, §4.1.3; RFC 9207; OIDC Core §3.1.2).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { decodeJwt } from 'jose';
import { loginAndConsent } from '../interaction/browserless.js';
import { assertErrorPage, assertErrorRedirect, SAFE_DESCRIPTION } from '../oauth/authorize/assertions.js';
import { authorize, authorizeUrl, exchange, REG, REG_Q, startWorld, type World } from './helpers/world.js';
import { Browser } from '../helpers/browser.js';
import { pkcePair } from '../helpers/pkce.js';

let w: World;
before(async () => {
  w = await startWorld();
});
after(() => w.close());

const get = (path: string, headers: Record<string, string> = {}) => fetch(w.url + path, { redirect: 'manual', headers });

/** A logged-in browser (U1) so that /authorize answers straight away. */
async function loggedIn(): Promise<Browser> {
  const browser = new Browser(w.url);
  await loginAndConsent(browser, authorizeUrl(w.A.id), w.U1);
  return browser;
}

describe('1. authorization endpoint', () => {
  test('1.1 code flow with state, nonce and S256 → redirect to REG with code, exact state and iss; no token in the URL', async () => {
    const state = 'S-exact/+= value';
    const a = await authorize(w, w.A, { state, nonce: 'N' });
    assert.equal(a.location.origin + a.location.pathname, REG);
    assert.ok(a.code.length >= 22);
    assert.equal(a.location.searchParams.get('state'), state);
    assert.equal(a.location.searchParams.get('iss'), w.url);
    for (const name of ['access_token', 'id_token', 'token_type']) assert.equal(a.location.searchParams.get(name), null);
    assert.equal(a.location.hash, '');
    const r = await exchange(w, w.A, a);
    assert.equal(r.status, 200);
    assert.equal(decodeJwt(String(r.body.id_token)).nonce, 'N');
  });

  test('1.2 the same request as POST application/x-www-form-urlencoded succeeds', async () => {
    const browser = await loggedIn();
    const p = pkcePair();
    const query = new URL(authorizeUrl(w.A.id, { state: 'post-state' }, p.challenge), w.url).searchParams;
    const response = await browser.post('/authorize', Object.fromEntries(query));
    assert.equal(response.status, 303);
    const location = new URL(response.headers.get('location')!);
    assert.equal(location.searchParams.get('state'), 'post-state');
    assert.ok(location.searchParams.get('code'));
    const r = await exchange(w, w.A, { location, code: location.searchParams.get('code')!, verifier: p.verifier, browser });
    assert.equal(r.status, 200);
  });

  const hostTricks = [
    'http://client.example/cb',
    'https://CLIENT.EXAMPLE/cb',
    'https://client.example:443/cb',
    'https://sub.client.example/cb',
    'https://client.example.evil.example/cb',
  ];
  for (const uri of hostTricks) {
    test(`1.4 redirect_uri with changed scheme/host/port (${uri}) → error page`, async () => {
      const html = await assertErrorPage(await get(authorizeUrl(w.A.id, { redirect_uri: uri })));
      assert.doesNotMatch(html, /evil\.example/);
    });
  }

  const pathTricks = [
    'https://client.example/cb/',
    'https://client.example/cbx',
    'https://client.example/cb/../cb',
    'https://client.example/cb%2f..',
    'https://client.example/cb%252f..',
    'https://client.example@evil.example/cb',
    'https://client.example/cb#frag',
    'https://client.example/cb?x=1',
    ' https://client.example/cb',
    'https://client.example/cb\u0000',
  ];
  for (const uri of pathTricks) {
    test(`1.5 redirect_uri with path/authority trick (${JSON.stringify(uri)}) → error page`, async () => {
      await assertErrorPage(await get(authorizeUrl(w.A.id, { redirect_uri: uri })));
    });
  }

  test('1.7 registered REG?x=1 used unchanged → success, Location keeps x=1 and appends code and state', async () => {
    const a = await authorize(w, w.A, { redirect_uri: REG_Q, state: 'q-state' });
    assert.equal(a.location.searchParams.get('x'), '1');
    assert.equal(a.location.searchParams.get('state'), 'q-state');
    assert.ok(a.code);
  });

  test('1.8 redirect_uri omitted (client has two URIs; scope has openid) → error page', async () => {
    await assertErrorPage(await get(authorizeUrl(w.A.id, { redirect_uri: undefined })));
    await assertErrorPage(await get(authorizeUrl(w.A.id, { redirect_uri: undefined, scope: 'users:read' })));
  });

  test('1.8+ unknown client_id, or client_id repeated → error page, never a redirect', async () => {
    await assertErrorPage(await get(authorizeUrl('no-such-client')));
    await assertErrorPage(await get(`${authorizeUrl(w.A.id)}&client_id=${w.B.id}`));
  });

  test('1.8+ client_id containing NUL or control characters → error page, not a 500', async () => {
    for (const id of ['\u0000', `${w.A.id}\u0000`, 'a\r\nb', '\u202e']) await assertErrorPage(await get(authorizeUrl(id)));
  });

  test('1.10 response_type omitted → redirect error=invalid_request or unsupported_response_type', async () => {
    const response = await get(authorizeUrl(w.A.id, { response_type: undefined, state: 'rt' }));
    const url = new URL(response.headers.get('location') ?? 'http://x/');
    assert.ok(['invalid_request', 'unsupported_response_type'].includes(url.searchParams.get('error') ?? ''), url.href);
    assertErrorRedirect(response, { error: url.searchParams.get('error')!, redirectUri: REG, state: 'rt', issuer: w.url });
  });

  for (const rt of ['token', 'code id_token', 'id_token', 'code token', 'foo', 'none']) {
    test(`1.11 response_type=${rt} → redirect error=unsupported_response_type, no token anywhere`, async () => {
      const response = await get(authorizeUrl(w.A.id, { response_type: rt, state: 'rt' }));
      const url = assertErrorRedirect(response, { error: 'unsupported_response_type', redirectUri: REG, state: 'rt', issuer: w.url });
      assert.equal(url.hash, '');
      assert.doesNotMatch(url.href, /access_token|id_token=/);
    });
  }

  test('1.13 reversed scope order, shuffled parameters and an unknown extra parameter → identical success', async () => {
    const p = pkcePair();
    const q = new URLSearchParams([
      ['extra', 'foobar'],
      ['state', 'shuffled'],
      ['code_challenge_method', 'S256'],
      ['scope', 'profile openid'],
      ['code_challenge', p.challenge],
      ['redirect_uri', REG],
      ['nonce', 'n'],
      ['client_id', w.A.id],
      ['response_type', 'code'],
    ]);
    const location = await loginAndConsent(new Browser(w.url), `/authorize?${q}`, w.U1);
    assert.equal(location.searchParams.get('state'), 'shuffled');
    assert.equal(location.searchParams.get('extra'), null);
    const r = await exchange(w, w.A, { location, code: location.searchParams.get('code')!, verifier: p.verifier, browser: new Browser(w.url) });
    assert.equal(r.status, 200);
    assert.deepEqual(String(r.body.scope).split(' ').sort(), ['openid', 'profile']);
  });

  test('1.14 state= empty is handled as absent (state is required → invalid_request)', async () => {
    const empty = await get(authorizeUrl(w.A.id, { state: '' }));
    const absent = await get(authorizeUrl(w.A.id, { state: undefined }));
    assertErrorRedirect(empty, { error: 'invalid_request', redirectUri: REG, issuer: w.url });
    assertErrorRedirect(absent, { error: 'invalid_request', redirectUri: REG, issuer: w.url });
    assert.equal(new URL(empty.headers.get('location')!).searchParams.get('state'), null);
  });

  test('1.14 scope= empty is handled as absent', async () => {
    const empty = await get(authorizeUrl(w.A.id, { scope: '', state: 's' }));
    const absent = await get(authorizeUrl(w.A.id, { scope: undefined, state: 's' }));
    assert.equal(empty.status, absent.status);
    assert.equal(
      new URL(empty.headers.get('location') ?? 'http://x/').searchParams.get('error'),
      new URL(absent.headers.get('location') ?? 'http://x/').searchParams.get('error'),
    );
  });

  test('1.16 every error redirect carries only error, error_description, error_uri, state and iss; never code', async () => {
    const browser = await loggedIn();
    for (const params of [
      { response_type: 'token' },
      { code_challenge_method: 'plain' },
      { scope: 'openid nonsense:scope' },
      { prompt: 'none login' },
      { code_challenge: undefined },
    ]) {
      const response = await browser.get(authorizeUrl(w.A.id, { state: 'err', ...params }));
      const url = new URL(response.headers.get('location')!);
      assertErrorRedirect(response, { error: url.searchParams.get('error')!, redirectUri: REG, state: 'err', issuer: w.url });
    }
  });

  test('1.17 <script> or CRLF in the input → error_description in the safe character set, no raw markup', async () => {
    const nasty = '<script>alert(1)</script>\r\nSet-Cookie: x=1\t"\\';
    for (const params of [{ scope: `openid ${nasty}` }, { code_challenge_method: nasty }, { prompt: nasty }, { response_type: nasty }, { max_age: nasty }]) {
      const response = await get(authorizeUrl(w.A.id, { state: 'x', ...params }));
      assert.ok(response.status === 303 || response.status === 400, `status ${response.status}`);
      if (response.status === 303) {
        const description = new URL(response.headers.get('location')!).searchParams.get('error_description') ?? '';
        assert.match(description, SAFE_DESCRIPTION);
        assert.doesNotMatch(description, /<script/i);
      } else {
        assert.doesNotMatch(await response.text(), /<script>alert/);
      }
      assert.equal(response.headers.get('set-cookie')?.includes('x=1') ?? false, false);
    }
  });

  test('1.19 user presses Deny → redirect error=access_denied with state, no code', async () => {
    const location = await loginAndConsent(new Browser(w.url), authorizeUrl(w.A.id, { state: 'deny', prompt: 'consent' }), w.U1, 'deny');
    assert.equal(location.searchParams.get('error'), 'access_denied');
    assert.equal(location.searchParams.get('state'), 'deny');
    assert.equal(location.searchParams.get('code'), null);
  });

  test('1.20 prompt=none with no session → redirect error=login_required, no UI', async () => {
    const response = await get(authorizeUrl(w.A.id, { prompt: 'none', state: 'pn' }));
    assertErrorRedirect(response, { error: 'login_required', redirectUri: REG, state: 'pn', issuer: w.url });
  });

  test('1.22 prompt=none combined with another value → redirect error=invalid_request', async () => {
    const browser = await loggedIn();
    for (const prompt of ['none login', 'consent none']) {
      const response = await browser.get(authorizeUrl(w.A.id, { prompt, state: 'pc' }));
      assertErrorRedirect(response, { error: 'invalid_request', redirectUri: REG, state: 'pc', issuer: w.url });
    }
  });

  test('1.23 prompt=login or max_age=0 with an active session → credentials asked again', async () => {
    const browser = await loggedIn();
    for (const params of [{ prompt: 'login' }, { max_age: '0' }]) {
      const first = await browser.get(authorizeUrl(w.A.id, params));
      assert.equal(first.status, 303);
      const page = await browser.get(first.headers.get('location')!);
      assert.match(await page.text(), /name="password"/);
    }
  });

  test('1.25 max_age=10000 inside the window → no re-authentication, same sub and auth_time', async () => {
    const browser = await loggedIn();
    const one = await authorize(w, w.A, { max_age: '10000' }, { browser });
    const two = await authorize(w, w.A, { max_age: '10000' }, { browser });
    const [t1, t2] = [await exchange(w, w.A, one), await exchange(w, w.A, two)];
    const [c1, c2] = [decodeJwt(String(t1.body.id_token)), decodeJwt(String(t2.body.id_token))];
    assert.equal(c1.sub, c2.sub);
    assert.equal(c1.auth_time, c2.auth_time);
  });

  test('1.26 prompt=none with id_token_hint from the first login → success without UI, same sub', async () => {
    const browser = await loggedIn();
    const first = await exchange(w, w.A, await authorize(w, w.A, {}, { browser }));
    const idToken = String(first.body.id_token);
    const response = await browser.get(authorizeUrl(w.A.id, { prompt: 'none', id_token_hint: idToken, state: 'h' }));
    assert.equal(response.status, 303);
    const location = new URL(response.headers.get('location')!);
    assert.ok(location.searchParams.get('code'), location.href);
  });

  for (const [name, value] of [
    ['login_hint', 'someone'],
    ['ui_locales', 'se'],
    ['claims_locales', 'se'],
    ['display', 'page'],
    ['display', 'popup'],
    ['acr_values', '1 2'],
  ] as const) {
    test(`1.28 ${name}=${value} → no error; the flow completes`, async () => {
      const a = await authorize(w, w.A, { [name]: value });
      assert.ok(a.code, a.location.href);
    });
  }

  test('1.29 code flow without nonce → success, id_token has no nonce', async () => {
    const a = await authorize(w, w.A, { nonce: undefined });
    const r = await exchange(w, w.A, a);
    assert.equal(r.status, 200);
    assert.equal(decodeJwt(String(r.body.id_token)).nonce, undefined);
  });

  test('1.29 a 384-character nonce is echoed exactly in the id_token (or invalid_request), never truncated', async () => {
    const nonce = 'n'.repeat(128) + 'o'.repeat(128) + 'x'.repeat(128);
    const response = await (await loggedIn()).get(authorizeUrl(w.A.id, { nonce, state: 'ln' }));
    const location = new URL(response.headers.get('location')!, w.url);
    if (location.searchParams.get('error')) {
      assert.equal(location.searchParams.get('error'), 'invalid_request');
      return;
    }
    const a = await authorize(w, w.A, { nonce });
    const r = await exchange(w, w.A, a);
    assert.equal(decodeJwt(String(r.body.id_token)).nonce, nonce);
  });

  test('1.31 request= (unsigned request object) → redirect error=request_not_supported, never silently ignored', async () => {
    const header = Buffer.from('{"alg":"none"}').toString('base64url');
    const body = Buffer.from(JSON.stringify({ redirect_uri: 'https://evil.example/cb' })).toString('base64url');
    const response = await get(authorizeUrl(w.A.id, { request: `${header}.${body}.`, state: 'ro' }));
    assertErrorRedirect(response, { error: 'request_not_supported', redirectUri: REG, state: 'ro', issuer: w.url });
  });

  test('1.31 request_uri=<https URL> → redirect error=request_uri_not_supported, no fetch', async () => {
    let fetched = 0;
    const { createServer } = await import('node:http');
    const server = createServer((_q, s) => {
      fetched += 1;
      s.end('x');
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const port = (server.address() as { port: number }).port;
    const response = await get(authorizeUrl(w.A.id, { request_uri: `http://127.0.0.1:${port}/ro`, state: 'ru' }));
    assertErrorRedirect(response, { error: 'request_uri_not_supported', redirectUri: REG, state: 'ru', issuer: w.url });
    await new Promise<void>((r) => server.close(() => r()));
    assert.equal(fetched, 0);
  });

  test('1.32 OPTIONS or GET /authorize with Origin: https://evil.example → no Access-Control-Allow-Origin', async () => {
    const origin = { origin: 'https://evil.example', 'access-control-request-method': 'POST' };
    const options = await fetch(`${w.url}/authorize`, { method: 'OPTIONS', headers: origin, redirect: 'manual' });
    const getResponse = await get(authorizeUrl(w.A.id), origin);
    for (const response of [options, getResponse]) {
      assert.equal(response.headers.get('access-control-allow-origin'), null);
      assert.equal(response.headers.get('access-control-allow-credentials'), null);
      assert.ok(response.status < 500);
    }
  });

  test('1.34 return targets (return_to, redirect, next, post_logout_redirect_uri) given https://evil.example never redirect there', async () => {
    const evil = encodeURIComponent('https://evil.example/');
    const paths = [
      `/login?return_to=${evil}`,
      `/interaction/x?return_to=${evil}`,
      `/logout?post_logout_redirect_uri=${evil}`,
      `/logout?post_logout_redirect_uri=${evil}&client_id=${w.A.id}`,
      `/authorize?next=${evil}`,
      `/logout/done?return_to=${evil}`,
    ];
    for (const path of paths) {
      const response = await get(path);
      assert.ok(response.status < 500, `${path} → ${response.status}`);
      assert.doesNotMatch(response.headers.get('location') ?? '', /evil\.example/, path);
      assert.doesNotMatch(await response.text(), /href="https:\/\/evil\.example/, path);
    }
  });

  test('1.35 PAR is not offered: /par is 404 and discovery does not advertise it', async () => {
    const response = await fetch(`${w.url}/par`, { method: 'POST' });
    assert.equal(response.status, 404);
    const discovery = (await (await fetch(`${w.url}/.well-known/openid-configuration`)).json()) as Record<string, unknown>;
    assert.equal(discovery.pushed_authorization_request_endpoint, undefined);
  });

  test('1.x an authorization code in the URL is never put into a Referer-capable page (303 straight to the client)', async () => {
    const a = await authorize(w, w.A, {});
    assert.equal(a.location.origin, 'https://client.example');
  });
});
