// OpenID Connect Back-Channel Logout 1.0 with a relying party started by the test (docs/backchannel-logout.md):
// the RP receives logout tokens at its backchannel_logout_uri and validates them as the spec's 2.6 says —
// signature against Gatehouse's JWKS (jose jwtVerify), iss, aud, iat, typ logout+jwt, the events claim,
// sub/sid, no nonce — when the user signs out, an operator ends the session, a password change ends every
// session, reset-mfa runs, or the user is deleted (the clients are read before the cascade). id_tokens, the
// refreshed ones too, carry the sid the logout token names; discovery advertises it; /register and the
// admin API take the metadata under the SSRF rules.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createRemoteJWKSet, decodeJwt, jwtVerify } from 'jose';
import { executeCommand } from '../../../src/cli/execute.js';
import { PLAIN_HTTP_SESSION_COOKIE } from '../../../src/interaction/session/session-cookie.js';
import { startTestApp, type TestApp } from '../../helpers/app.js';
import { Browser, parseForm } from '../../helpers/browser.js';
import { NO_LIMITS } from '../../helpers/env.js';
import { RFC7636 } from '../../helpers/pkce.js';
import { createUser, SIGN_IN } from '../../helpers/users.js';
import { authorizeQuery, loginAndConsent } from '../../interaction/browserless.js';
import { basicAuth, postForm } from '../fixtures.js';
import { startReceiver, type Receiver } from '../../webhooks/receiver.js';
import { freshClientAddress, linkIn, postForm as selfServicePost, settle } from '../../self-service/self-service-world.js';

const REDIRECT_URI = 'https://rp.example/cb';
const SECRET = 'a-relying-party-secret-of-forty-characters';
const EVENT = 'http://schemas.openid.net/event/backchannel-logout';

let t: TestApp;
let rp: Receiver;
let clientId: string;
const cli = (...argv: string[]) => executeCommand(argv, t.core) as Promise<Record<string, unknown>>;

before(async () => {
  t = await startTestApp({ env: { ...NO_LIMITS, WEBHOOK_ALLOWED_HOSTS: '127.0.0.1', TRUST_PROXY: '127.0.0.1' } });
  rp = await startReceiver('/backchannel-logout');
  const client = await cli(
    'clients',
    'create',
    '--name',
    'Relying party',
    '--type',
    'confidential',
    '--redirect-uri',
    REDIRECT_URI,
    '--grant-types',
    'authorization_code,refresh_token',
    '--scope',
    'openid profile offline_access',
    '--skip-consent',
    '--secret',
    SECRET,
    '--backchannel-logout-uri',
    rp.url,
    '--backchannel-logout-session-required',
  );
  clientId = String(client.client_id);
});
after(async () => {
  await rp.close();
  await t.close();
});

const worker = () => t.app.core.outboxWorker;

/** Signs a new user in to the RP; the browser (with its session) and the tokens of the code exchange. */
async function signedIn(email?: string): Promise<{ browser: Browser; userId: string; idToken: string; refreshToken: string }> {
  const user = await createUser(t.core.db, t.core.clock, {
    ...SIGN_IN,
    username: `bcl-${crypto.randomUUID().slice(0, 8)}`,
    ...(email ? { profile: { name: 'R', email, email_verified: true } } : {}),
  });
  const browser = new Browser(t.url);
  const redirect = await loginAndConsent(browser, authorizeQuery(clientId, REDIRECT_URI, { scope: 'openid profile offline_access', prompt: 'consent' }), user);
  const code = redirect.searchParams.get('code')!;
  const tokens = await postForm(
    `${t.url}/token`,
    { grant_type: 'authorization_code', code, redirect_uri: REDIRECT_URI, code_verifier: RFC7636.verifier },
    { authorization: basicAuth(clientId, SECRET) },
  );
  assert.equal(tokens.status, 200, tokens.text);
  return { browser, userId: user.id, idToken: String(tokens.body.id_token), refreshToken: String(tokens.body.refresh_token) };
}

/** The RP's validation of a logout token (Back-Channel Logout 1.0, 2.6). */
async function validLogoutToken(token: string): Promise<Record<string, unknown>> {
  const { jwks_uri } = (await (await fetch(`${t.url}/.well-known/openid-configuration`)).json()) as { jwks_uri: string };
  const { payload, protectedHeader } = await jwtVerify(token, createRemoteJWKSet(new URL(jwks_uri)), {
    issuer: t.url,
    audience: clientId,
    typ: 'logout+jwt',
    maxTokenAge: '2 minutes',
  });
  assert.equal(protectedHeader.typ, 'logout+jwt');
  assert.equal(typeof payload.iat, 'number');
  assert.equal(typeof payload.jti, 'string');
  assert.ok(payload.sub !== undefined || payload.sid !== undefined, 'sub or sid');
  assert.deepEqual((payload.events as Record<string, unknown>)[EVENT], {});
  assert.equal('nonce' in payload, false, 'a logout token never carries a nonce');
  return payload;
}

async function logoutTokensFor(sub: string, count: number): Promise<Record<string, unknown>[]> {
  worker().wake();
  const deadline = Date.now() + 20_000;
  for (;;) {
    const mine = rp.received.map((r) => new URLSearchParams(r.body).get('logout_token')!).filter((token) => decodeJwt(token).sub === sub);
    if (mine.length >= count) return Promise.all(mine.map(validLogoutToken));
    if (Date.now() > deadline) throw new Error(`the RP got ${mine.length} logout tokens for ${sub}, expected ${count}`);
    await rp.waitFor(rp.received.length + 1, 500).catch(() => {});
  }
}

test('discovery advertises back-channel logout with sid', async () => {
  const metadata = (await (await fetch(`${t.url}/.well-known/openid-configuration`)).json()) as Record<string, unknown>;
  assert.equal(metadata.backchannel_logout_supported, true);
  assert.equal(metadata.backchannel_logout_session_supported, true);
});

test('the id_token carries sid, and so does the refreshed id_token; signing out sends the RP a valid logout token with that sid and sub, as a form POST', async () => {
  const { browser, userId, idToken, refreshToken } = await signedIn();
  const sid = decodeJwt(idToken).sid;
  assert.equal(typeof sid, 'string');
  const refreshed = await postForm(
    `${t.url}/token`,
    { grant_type: 'refresh_token', refresh_token: refreshToken },
    { authorization: basicAuth(clientId, SECRET) },
  );
  assert.equal(refreshed.status, 200, refreshed.text);
  assert.equal(decodeJwt(String(refreshed.body.id_token)).sid, sid);
  // The user signs out on the logout page (confirmation form with its CSRF token).
  const page = await browser.get('/logout');
  const form = parseForm(await page.text());
  const out = await browser.post('/logout', form.hidden);
  assert.ok(out.status < 400, String(out.status));
  const [token] = await logoutTokensFor(userId, 1);
  assert.equal(token!.sid, sid);
  assert.equal(token!.sub, userId);
  const ended = await t.core.db.selectFrom('audit_events').select('details').where('type', '=', 'session.ended').where('subject', '=', userId).execute();
  assert.deepEqual(ended, [{ details: { sid, reason: 'signed_out' } }]);
  const request = rp.received.find((r) => decodeJwt(new URLSearchParams(r.body).get('logout_token')!).sub === userId)!;
  assert.match(String(request.headers['content-type']), /^application\/x-www-form-urlencoded/);
});

test('an operator ending the session sends a logout token for that session', async () => {
  const { browser, userId, idToken } = await signedIn();
  assert.ok(browser.cookies.get(PLAIN_HTTP_SESSION_COOKIE));
  const sessions = (await cli('sessions', 'list', '--user', userId)) as { sessions: { id: string }[] };
  assert.equal(sessions.sessions.length, 1);
  await cli('sessions', 'end', sessions.sessions[0]!.id);
  const [token] = await logoutTokensFor(userId, 1);
  assert.equal(token!.sid, decodeJwt(idToken).sid);
  // The audit event names the session as the RP knows it.
  const ended = await t.core.db.selectFrom('audit_events').select('details').where('type', '=', 'admin.session.ended').where('subject', '=', userId).execute();
  assert.deepEqual(ended, [{ details: { sid: decodeJwt(idToken).sid } }]);
});

test("a password change by the operator, reset-mfa and deleting the user each send logout tokens (the deleted user's clients are read before the cascade)", async () => {
  const a = await signedIn();
  await cli('users', 'set-password', a.userId, '--password', 'a completely new passphrase');
  assert.equal((await logoutTokensFor(a.userId, 1))[0]!.sid, decodeJwt(a.idToken).sid);

  const b = await signedIn();
  await cli('users', 'reset-mfa', b.userId);
  assert.equal((await logoutTokensFor(b.userId, 1))[0]!.sid, decodeJwt(b.idToken).sid);

  const c = await signedIn();
  await cli('users', 'delete', c.userId);
  assert.equal((await logoutTokensFor(c.userId, 1))[0]!.sid, decodeJwt(c.idToken).sid);
  await worker().drain();
  // Each message once: the jti (the outbox message id) is not repeated.
  const jtis = rp.received.map((r) => decodeJwt(new URLSearchParams(r.body).get('logout_token')!).jti);
  assert.equal(new Set(jtis).size, jtis.length);
});

test('a forgotten-password reset ends the sessions and sends their logout tokens', async () => {
  const email = `bcl-reset-${crypto.randomUUID().slice(0, 8)}@example.test`;
  const { userId, idToken } = await signedIn(email);
  const forgot = await selfServicePost(t, '/password/forgot', { email }, { 'x-forwarded-for': freshClientAddress() });
  assert.equal(forgot.status, 200);
  await settle(t);
  const token = new URL(linkIn(t, email, '/password/reset')).searchParams.get('token')!;
  assert.equal((await selfServicePost(t, '/password/reset', { token, password: 'after the reset', confirm: 'after the reset' })).status, 200);
  assert.equal((await logoutTokensFor(userId, 1))[0]!.sid, decodeJwt(idToken).sid);
});

test('SSRF rule: a backchannel_logout_uri at a loopback or cloud-metadata address is refused at /register and in the admin API unless its host is allow-listed', async () => {
  const strict = await startTestApp({ env: NO_LIMITS });
  const initialToken = async () =>
    String(((await executeCommand(['registration-token', 'create', '--ttl', '3600'], strict.core)) as { initial_access_token: string }).initial_access_token);
  const register = async (body: unknown) =>
    fetch(`${strict.url}/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${await initialToken()}` },
      body: JSON.stringify(body),
    });
  try {
    for (const uri of ['https://127.0.0.1/bcl', 'https://169.254.169.254/bcl', 'https://localhost/bcl']) {
      const res = await register({ client_name: 'RP', redirect_uris: [REDIRECT_URI], backchannel_logout_uri: uri });
      assert.equal(res.status, 400, uri);
      assert.equal(((await res.json()) as { error: string }).error, 'invalid_client_metadata');
    }
    const ok = await register({
      client_name: 'RP',
      redirect_uris: [REDIRECT_URI],
      backchannel_logout_uri: 'https://rp.example/bcl',
      backchannel_logout_session_required: true,
    });
    assert.equal(ok.status, 201, await ok.clone().text());
    const registered = (await ok.json()) as Record<string, unknown>;
    assert.equal(registered.backchannel_logout_uri, 'https://rp.example/bcl');
    assert.equal(registered.backchannel_logout_session_required, true);
    // The CLI face, same rule: refused without the allow-list.
    await assert.rejects(
      executeCommand(
        [
          'clients',
          'create',
          '--name',
          'RP',
          '--type',
          'confidential',
          '--redirect-uri',
          REDIRECT_URI,
          '--grant-types',
          'authorization_code',
          '--scope',
          'openid',
          '--backchannel-logout-uri',
          'https://169.254.169.254/x',
        ],
        strict.core,
      ),
      /backchannel_logout_uri/,
    );
  } finally {
    await strict.close();
  }
});

test("export writes the client's backchannel_logout_uri and backchannel_logout_session_required, and applying the export plans nothing", async () => {
  const { exportConfiguration } = await import('../../../src/admin-services/export-configuration.js');
  const { applyConfiguration } = await import('../../../src/admin-services/apply-configuration.js');
  const file = await exportConfiguration(t.core);
  const entry = file.clients.find((c) => c.client_id === clientId)!;
  assert.equal(entry.backchannel_logout_uri, rp.url);
  assert.equal(entry.backchannel_logout_session_required, true);
  const env = {
    ...Object.fromEntries(
      file.clients
        .filter((c) => c.client_secret_env)
        .map((c) => [c.client_secret_env!, c.client_id === clientId ? SECRET : 'unused-but-long-enough-secret-value-0123456789']),
    ),
    ...Object.fromEntries((file.webhooks ?? []).map((w) => [w.secret_env, 'x'])),
  };
  const plan = await applyConfiguration(
    { ...t.core, audit: t.core.audit },
    { ...file, clients: [entry], webhooks: undefined },
    env,
    { dryRun: true, prune: false },
    { actor: { kind: 'cli', user: 'test' } },
  );
  assert.deepEqual(plan.plan, []);
});
