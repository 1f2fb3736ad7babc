// An unauthenticated caller cannot make /authorize store what it likes: only the parameters /authorize
// understands are kept, each bounded and all together bounded; the POST body is small; and what a flood
// of anonymous requests parks (interactions, pre-login sessions) is purged within minutes of expiry.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'kysely';
import { manualClock } from '../../../src/clock.js';
import { sha256 } from '../../../src/crypto/random.js';
import { INTERACTION_TTL_SECONDS } from '../../../src/interaction/index.js';
import { AUTHORIZE_BODY_LIMIT } from '../../../src/oauth/authorize/authorize-route.js';
import { AUTHORIZATION_PARAMETERS, MAX_AUTHORIZATION_PARAMETERS_BYTES, storedSize } from '../../../src/oauth/authorize/parameters.js';
import { startTestApp, type TestApp } from '../../helpers/app.js';
import { createClient } from '../../helpers/oauth-fixtures.js';
import { authorizeQuery } from '../../interaction/browserless.js';
import type { Client } from '../../../src/storage/repositories/clients-repository.js';
import { assertErrorPage, assertErrorRedirect } from './assertions.js';
import { Browser } from '../../helpers/browser.js';

const REG = 'https://client.example/cb';
/** Checked against the registry before anything else (an over-long one is simply not registered). */
const CHECKED_BEFORE_TRUST = new Set(['client_id', 'redirect_uri']);
/** Refused whatever their length (request_not_supported). */
const REFUSED_ANYWAY = new Set(['request', 'request_uri']);

describe('authorize: request limits', () => {
  const clock = manualClock();
  let t: TestApp;
  let client: Client;
  before(async () => {
    t = await startTestApp({ clock, env: { RATE_LIMIT_ENABLED: 'false' } });
    client = (await createClient(t.core.db, t.core.clock, { redirectUris: [REG] })).client;
  });
  after(() => t.close());

  const count = async (table: 'interactions' | 'browser_sessions', anonymousOnly = false) => {
    let query = t.core.db.selectFrom(table).select((eb) => eb.fn.countAll<number>().as('n'));
    if (anonymousOnly) query = query.where(sql.ref('user_id'), 'is', null);
    return Number((await query.executeTakeFirstOrThrow()).n);
  };
  const get = (extra: Record<string, string | undefined>) => fetch(t.url + authorizeQuery(client.id, REG, extra), { redirect: 'manual' });
  const post = (form: Record<string, string>) =>
    fetch(`${t.url}/authorize`, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams(form).toString(),
    });
  const parkedIdHash = (response: Response) => sha256((response.headers.get('location') ?? '').replace('/interaction/', ''));
  const baseForm = () => Object.fromEntries(new URL(t.url + authorizeQuery(client.id, REG)).searchParams);

  test('every /authorize parameter has a maximum length: one character more is invalid_request by redirect, and nothing is stored', async () => {
    const before = await count('interactions');
    for (const [name, max] of Object.entries(AUTHORIZATION_PARAMETERS)) {
      if (CHECKED_BEFORE_TRUST.has(name) || REFUSED_ANYWAY.has(name)) continue;
      const url = assertErrorRedirect(await get({ [name]: 'x'.repeat(max + 1) }), {
        error: 'invalid_request',
        redirectUri: REG,
        state: name === 'state' ? null : 'state-123',
        issuer: t.url,
      });
      assert.match(url.searchParams.get('error_description') ?? '', new RegExp(`${name} is longer than ${max}`), name);
    }
    assert.equal(await count('interactions'), before);
  });

  test('an over-long client_id or redirect_uri is an error page, never a redirect (the client is not trusted yet)', async () => {
    await assertErrorPage(await fetch(t.url + authorizeQuery('c'.repeat(100_000).slice(0, 7000), REG), { redirect: 'manual' }));
    await assertErrorPage(await fetch(t.url + authorizeQuery(client.id, `${REG}?${'p'.repeat(6000)}`), { redirect: 'manual' }));
  });

  test('the parameters together are bounded: each within its limit but over 4 KiB in all is invalid_request', async () => {
    const big = {
      state: 's'.repeat(AUTHORIZATION_PARAMETERS.state),
      nonce: 'n'.repeat(AUTHORIZATION_PARAMETERS.nonce),
      login_hint: 'l'.repeat(AUTHORIZATION_PARAMETERS.login_hint),
      id_token_hint: 'h'.repeat(1400),
    };
    const url = assertErrorRedirect(await post({ ...baseForm(), ...big }), { error: 'invalid_request', redirectUri: REG, issuer: t.url });
    assert.match(url.searchParams.get('error_description') ?? '', new RegExp(`together exceed ${MAX_AUTHORIZATION_PARAMETERS_BYTES} bytes`));
  });

  test('parameters /authorize does not understand are not stored in the interaction', async () => {
    const junk = Object.fromEntries(Array.from({ length: 40 }, (_, i) => [`junk${i}`, 'j'.repeat(300)]));
    const response = await post({ ...baseForm(), ...junk, claims: '{"id_token":{"x":null}}' });
    assert.equal(response.status, 303);
    const row = await t.core.db.selectFrom('interactions').select(['request']).where('id_hash', '=', parkedIdHash(response)).executeTakeFirstOrThrow();
    const stored = row.request as { parameters: Record<string, string> };
    assert.deepEqual(
      Object.keys(stored.parameters).filter((name) => !Object.hasOwn(AUTHORIZATION_PARAMETERS, name)),
      [],
    );
    assert.ok(JSON.stringify(row.request).length < 1024, 'only the few real parameters were kept');
  });

  test('the largest acceptable request parks an interaction of under 5 KiB', async () => {
    // Quotes double in JSON: the bound is on the stored (JSON-encoded) size. The state takes what is left.
    const rest = { ...baseForm(), nonce: 'n'.repeat(AUTHORIZATION_PARAMETERS.nonce), login_hint: 'l'.repeat(AUTHORIZATION_PARAMETERS.login_hint), state: '' };
    const state = '"'.repeat(Math.floor((MAX_AUTHORIZATION_PARAMETERS_BYTES - storedSize(rest)) / 2));
    const form = { ...rest, state };
    assert.ok(storedSize(form) > MAX_AUTHORIZATION_PARAMETERS_BYTES - 64, `parameters of ${storedSize(form)} bytes: close to the limit`);
    const response = await post(form);
    assert.equal(response.status, 303, response.headers.get('location') ?? '');
    const { bytes } = await t.core.db
      .selectFrom('interactions')
      .select(sql<number>`octet_length(request::text)`.as('bytes'))
      .where('id_hash', '=', parkedIdHash(response))
      .executeTakeFirstOrThrow();
    assert.ok(Number(bytes) < 5 * 1024, `stored ${bytes} bytes`);
  });

  test(`a POST /authorize body over ${AUTHORIZE_BODY_LIMIT} bytes is refused with a 413 page`, async () => {
    const body = new URLSearchParams({ ...baseForm(), padding: 'p'.repeat(AUTHORIZE_BODY_LIMIT) }).toString();
    const response = await fetch(`${t.url}/authorize`, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body,
    });
    assert.equal(response.status, 413);
    assert.match(response.headers.get('content-type') ?? '', /^text\/html/);
    assert.match(await response.text(), /Payload too large/);
  });

  test('a flood of anonymous /authorize requests leaves nothing behind: the pending-login purge runs every minute and drops expired interactions and their pre-login sessions', async () => {
    const before = { interactions: await count('interactions'), anonymous: await count('browser_sessions', true) };
    await Promise.all(Array.from({ length: 20 }, () => new Browser(t.url).get(authorizeQuery(client.id, REG))));
    assert.equal(await count('interactions'), before.interactions + 20);
    assert.equal(await count('browser_sessions', true), before.anonymous + 20);

    clock.advance(INTERACTION_TTL_SECONDS * 1000 + 11 * 60_000);
    await t.app.jobs.runDue();
    assert.equal(await count('interactions'), 0);
    assert.equal(await count('browser_sessions', true), 0);

    // The next pass is due one minute later, not ten.
    await Promise.all(Array.from({ length: 5 }, () => new Browser(t.url).get(authorizeQuery(client.id, REG))));
    await t.core.db
      .updateTable('interactions')
      .set({ expires_at: new Date(clock.now() - 11 * 60_000) })
      .execute();
    await t.core.db
      .updateTable('browser_sessions')
      .set({ created_at: new Date(clock.now() - 120_000) })
      .where('user_id', 'is', null)
      .execute();
    clock.advance(60_000);
    await t.app.jobs.runDue();
    assert.equal(await count('interactions'), 0);
    assert.equal(await count('browser_sessions', true), 0);
  });
});
