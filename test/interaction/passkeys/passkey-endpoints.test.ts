// The passkey ceremonies' JSON endpoints from an attacker's side, without a browser (the real ceremonies run
// in test/e2e/passkeys.browser.test.ts): garbage, huge and deeply nested bodies get a Problem and a log line
// saying why, never a 500; failed assertions spend the login failure budget like wrong passwords; a second
// factor cannot be skipped by posting to the consent step; the options of each mode offer the right keys.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { manualClock } from '../../../src/clock.js';
import { passkeysRepository } from '../../../src/storage/repositories/passkeys-repository.js';
import type { Client } from '../../../src/storage/repositories/clients-repository.js';
import type { User } from '../../../src/storage/repositories/users-repository.js';
import { startTestApp, type TestApp } from '../../helpers/app.js';
import { Browser } from '../../helpers/browser.js';
import { createClient, REDIRECT_URI } from '../../helpers/oauth-fixtures.js';
import { SIGN_IN, createUser } from '../../helpers/users.js';
import { authorizeQuery, openInteraction, submitLogin } from '../browserless.js';

const LIMIT = 4;

describe('passkey ceremony endpoints', () => {
  let t: TestApp;
  let client: Client;
  const clock = manualClock(1_800_000_000_000);
  const logLines: Record<string, unknown>[] = [];
  const logStream = new Writable({
    write(chunk, _encoding, done) {
      for (const line of String(chunk).split('\n')) if (line.trim()) logLines.push(JSON.parse(line) as Record<string, unknown>);
      done();
    },
  });
  const refusals = (from: number) =>
    logLines
      .slice(from)
      .filter((l) => l.msg === 'request refused')
      .map((l) => String(l.reason));

  before(async () => {
    t = await startTestApp({ clock, logStream, env: { RATE_LIMIT_LOGIN_FAILURES: String(LIMIT) } });
    client = (await createClient(t.core.db, t.core.clock, { skipConsent: false })).client;
  });
  after(() => t.close());

  /** A user with a registered passkey (its key is never used here: these tests never get that far). */
  async function userWithPasskey(): Promise<{ user: User; credentialId: string }> {
    const user = await createUser(t.core.db, t.core.clock, SIGN_IN);
    const credentialId = `cred-${user.id}`.replace(/[^A-Za-z0-9_-]/g, '');
    await passkeysRepository(t.core.db, t.core.clock).add({
      credentialId,
      userId: user.id,
      publicKey: 'AA',
      signCount: 0,
      transports: [],
      deviceType: 'singleDevice',
      name: 'Key',
    });
    return { user, credentialId };
  }

  async function atLogin() {
    const browser = new Browser(t.url);
    const { form, path } = await openInteraction(browser, authorizeQuery(client.id, REDIRECT_URI));
    const postJson = (endpoint: string, body: string | object, headers: Record<string, string> = {}) =>
      fetch(`${t.url}${path}/passkey/${endpoint}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', cookie: browser.cookieHeader(), ...headers },
        body: typeof body === 'string' ? body : JSON.stringify(body),
      });
    return { browser, form, path, csrf: form.hidden.csrf!, postJson };
  }

  test('bad input (garbage, huge, deeply nested, wrong shapes) gets a Problem and a logged reason, never a 500', async () => {
    const { csrf, postJson } = await atLogin();
    const nested = `{"csrf":${JSON.stringify(csrf)},"response":${'{"a":'.repeat(200)}1${'}'.repeat(200)}}`;
    const cases: [string, string | object, number][] = [
      ['not JSON', '{"csrf": nope', 400],
      ['an array', '[1,2,3]', 400],
      ['huge', { csrf, response: { id: 'x'.repeat(100_000) } }, 413],
      ['deeply nested', nested, 400],
      ['unknown fields', { csrf, response: {}, extra: 1 }, 400],
      ['response not an object', { csrf, response: 'abc' }, 400],
      ['id not a string', { csrf, response: { id: 5, type: 'public-key' } }, 400],
      [
        'unknown credential',
        { csrf, response: { id: 'AAAA', rawId: 'AAAA', type: 'public-key', response: { clientDataJSON: 'e30', authenticatorData: 'AA', signature: 'AA' } } },
        400,
      ],
      ['control characters', { csrf, response: { id: '\u0000\u0001', response: { clientDataJSON: '\u0000' } } }, 400],
    ];
    for (const [label, body, status] of cases) {
      const mark = logLines.length;
      const answer = await postJson('verify', body);
      assert.equal(answer.status, status, label);
      assert.match(answer.headers.get('content-type') ?? '', /application\/problem\+json/, label);
      assert.equal(refusals(mark).length, 1, `${label}: the log says why`);
    }
    clock.advance(120_000);
  });

  test('a garbage assertion naming a real passkey is refused (its challenge is not this flow’s) and the log says so', async () => {
    const { credentialId } = await userWithPasskey();
    const { csrf, postJson } = await atLogin();
    assert.equal((await postJson('options', { csrf })).status, 200);
    const mark = logLines.length;
    const answer = await postJson('verify', {
      csrf,
      response: { id: credentialId, rawId: credentialId, type: 'public-key', response: { clientDataJSON: 'e30', authenticatorData: 'AA', signature: 'AA' } },
    });
    assert.equal(answer.status, 400);
    assert.deepEqual(refusals(mark), ['challenge_not_found']);
  });

  test('failed passkey assertions count against the login failure budget: then even the right password gets a 429', async () => {
    const { user, credentialId } = await userWithPasskey();
    const garbage = {
      id: credentialId,
      rawId: credentialId,
      type: 'public-key',
      response: { clientDataJSON: 'e30', authenticatorData: 'AA', signature: 'AA' },
    };
    for (let i = 0; i < LIMIT; i++) {
      const { csrf, postJson } = await atLogin();
      assert.equal((await postJson('verify', { csrf, response: garbage })).status, 400, `attempt ${i + 1}`);
    }
    const { csrf, postJson } = await atLogin();
    assert.equal((await postJson('verify', { csrf, response: garbage })).status, 429, 'the budget of this account and address is spent');
    const { browser, form } = await atLogin();
    assert.equal((await submitLogin(browser, form, user.username)).status, 429, 'the password shares that budget');
    clock.advance(120_000);
  });

  test('second factor not skippable: after the password of an account with a passkey, posting to consent issues no code', async () => {
    const { user } = await userWithPasskey();
    const { browser, form, path } = await atLogin();
    const login = await submitLogin(browser, form, user.username);
    assert.equal(login.headers.get('location'), path, 'the password alone goes back to the interaction');
    const page = await (await browser.get(path)).text();
    assert.match(page, /Use a passkey/);
    assert.doesNotMatch(page, /name="otp"/, 'no authenticator app: no code field');
    const consent = await browser.post(`${path}/consent`, { csrf: form.hidden.csrf!, decision: 'allow' });
    assert.equal(consent.status, 303);
    assert.equal(consent.headers.get('location'), path, 'consent leads back to the interaction, not to the client');
    const codes = await t.core.db.selectFrom('authorization_codes').select('user_id').where('user_id', '=', user.id).execute();
    assert.equal(codes.length, 0);
  });

  test('options: the second factor offers only that user’s passkeys; passwordless offers any, with user verification required', async () => {
    const { user, credentialId } = await userWithPasskey();
    const other = await userWithPasskey();
    const passwordless = await atLogin();
    const open = (await (await passwordless.postJson('options', { csrf: passwordless.csrf })).json()) as Record<string, unknown>;
    assert.equal(open.allowCredentials, undefined);
    assert.equal(open.userVerification, 'required');
    assert.equal(open.rpId, '127.0.0.1');

    const { browser, form, csrf, postJson } = await atLogin();
    await submitLogin(browser, form, user.username);
    const second = (await (await postJson('options', { csrf })).json()) as { allowCredentials: { id: string }[] };
    assert.deepEqual(
      second.allowCredentials.map((c) => c.id),
      [credentialId],
    );
    assert.ok(!second.allowCredentials.some((c) => c.id === other.credentialId));
  });

  test('a passkey of another account cannot be the second factor: after B\u2019s password, an assertion naming A\u2019s credential is refused (credential_of_another_user) and issues no code', async () => {
    const a = await userWithPasskey();
    const b = await userWithPasskey();
    const { browser, form, path, csrf, postJson } = await atLogin();
    assert.equal((await submitLogin(browser, form, b.user.username)).headers.get('location'), path);
    assert.equal((await postJson('options', { csrf })).status, 200);
    const mark = logLines.length;
    const answer = await postJson('verify', {
      csrf,
      response: {
        id: a.credentialId,
        rawId: a.credentialId,
        type: 'public-key',
        response: { clientDataJSON: 'e30', authenticatorData: 'AA', signature: 'AA' },
      },
    });
    assert.equal(answer.status, 400);
    assert.deepEqual(refusals(mark), ['credential_of_another_user']);
    const codes = await t.core.db.selectFrom('authorization_codes').select('user_id').where('user_id', 'in', [a.user.id, b.user.id]).execute();
    assert.equal(codes.length, 0);
  });
});
