import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { decodeJwt } from 'jose';
import { manualClock } from '../../../src/clock.js';
import { sha256 } from '../../../src/crypto/random.js';
import { clientsRepository } from '../../../src/storage/repositories/clients-repository.js';
import { usersRepository } from '../../../src/storage/repositories/users-repository.js';
import { startTestApp, type TestApp } from '../../helpers/app.js';
import { codeGrantTokens, createClient, refreshWith, type ClientFixture } from '../../helpers/oauth-fixtures.js';
import { NO_LIMITS } from '../../helpers/env.js';
import { createUser } from '../../helpers/users.js';

const clock = manualClock();
const logs = new PassThrough();
let logText = '';
logs.on('data', (chunk: Buffer) => (logText += chunk.toString()));
let t: TestApp;

before(async () => {
  t = await startTestApp({ clock, logStream: logs, env: NO_LIMITS });
});
after(async () => {
  await t.close();
});

const SCOPE = ['openid', 'offline_access', 'profile', 'email', 'orders:read'];

async function family(options: { fixture?: ClientFixture; scope?: string[] } = {}) {
  const fixture = options.fixture ?? (await createClient(t.core.db, clock, { type: 'confidential' }));
  const user = await createUser(t.core.db, clock);
  const tokens = await codeGrantTokens(t, fixture, user, options.scope ?? SCOPE);
  return { fixture, user, tokens, refreshToken: tokens.refresh_token as string, accessToken: tokens.access_token as string };
}

const userinfoStatus = async (token: string) => (await fetch(`${t.url}/userinfo`, { headers: { authorization: `Bearer ${token}` } })).status;

async function introspect(fixture: ClientFixture, token: string): Promise<Record<string, unknown>> {
  const response = await fetch(`${t.url}/introspect`, {
    method: 'POST',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      authorization: `Basic ${Buffer.from(`${fixture.client.id}:${fixture.secret}`).toString('base64')}`,
    },
    body: new URLSearchParams({ token }),
  });
  return (await response.json()) as Record<string, unknown>;
}

describe('refresh tokens', () => {
  test('refresh tokens are opaque 256-bit values stored only as SHA-256', async () => {
    const { refreshToken } = await family();
    assert.ok(Buffer.from(refreshToken, 'base64url').length >= 32);
    assert.equal(refreshToken.split('.').length, 1);
    const stored = await t.core.db.selectFrom('refresh_tokens').select('token_hash').execute();
    assert.ok(stored.some((r) => r.token_hash === sha256(refreshToken)));
    assert.ok(stored.every((r) => r.token_hash !== refreshToken));
  });

  test('rotation: each use returns a new refresh token and access token and invalidates the presented one', async () => {
    const f = await family();
    const first = await refreshWith(t.url, f.fixture, f.refreshToken);
    assert.equal(first.status, 200);
    assert.equal(first.headers.get('cache-control'), 'no-store');
    assert.notEqual(first.body.refresh_token, f.refreshToken);
    assert.notEqual(first.body.access_token, f.accessToken);
    assert.equal(first.body.scope, SCOPE.join(' '));
    const second = await refreshWith(t.url, f.fixture, first.body.refresh_token as string);
    assert.equal(second.status, 200);
    assert.equal((await introspect(f.fixture, second.body.refresh_token as string)).active, true);
    assert.equal((await introspect(f.fixture, first.body.refresh_token as string)).active, false);
  });

  test('rotation: the refreshed id_token keeps sub, aud and auth_time and has a new iat', async () => {
    const f = await family();
    const before = decodeJwt(f.tokens.id_token as string);
    clock.advance(5_000);
    const { body } = await refreshWith(t.url, f.fixture, f.refreshToken);
    const after = decodeJwt(body.id_token as string);
    assert.equal(after.sub, before.sub);
    assert.equal(after.aud, before.aud);
    assert.equal(after.auth_time, before.auth_time);
    assert.ok((after.iat as number) > (before.iat as number));
  });

  test('reuse → family revoked: old and new refresh tokens and the family’s access tokens are all refused', async () => {
    const f = await family();
    const rotated = await refreshWith(t.url, f.fixture, f.refreshToken);
    const newRefresh = rotated.body.refresh_token as string;
    const newAccess = rotated.body.access_token as string;
    assert.equal(await userinfoStatus(newAccess), 200);

    const replay = await refreshWith(t.url, f.fixture, f.refreshToken);
    assert.equal(replay.status, 400);
    assert.equal(replay.body.error, 'invalid_grant');

    assert.equal((await refreshWith(t.url, f.fixture, newRefresh)).body.error, 'invalid_grant');
    for (const access of [f.accessToken, newAccess]) {
      assert.equal(await userinfoStatus(access), 401);
      assert.equal((await introspect(f.fixture, access)).active, false);
    }
    assert.equal((await introspect(f.fixture, newRefresh)).active, false);
  });

  test('reuse is logged as a security event with the family id and never the token', async () => {
    const f = await family();
    await refreshWith(t.url, f.fixture, f.refreshToken);
    await refreshWith(t.url, f.fixture, f.refreshToken);
    const record = await t.core.db.selectFrom('refresh_tokens').select('grant_id').where('token_hash', '=', sha256(f.refreshToken)).executeTakeFirstOrThrow();
    const line = logText.split('\n').find((l) => l.includes('refresh_token_reuse') && l.includes(record.grant_id));
    assert.ok(line, 'security event logged');
    assert.equal(JSON.parse(line).level, 40);
    assert.ok(!logText.includes(f.refreshToken));
  });

  test('scope narrowing applies to that access token only; a later refresh without scope restores the granted scope', async () => {
    const f = await family();
    const narrowed = await refreshWith(t.url, f.fixture, f.refreshToken, { scope: 'orders:read' });
    assert.equal(narrowed.status, 200);
    assert.equal(narrowed.body.scope, 'orders:read');
    assert.equal(decodeJwt(narrowed.body.access_token as string).scope, 'orders:read');
    assert.equal(narrowed.body.id_token, undefined);
    const restored = await refreshWith(t.url, f.fixture, narrowed.body.refresh_token as string);
    assert.equal(restored.body.scope, SCOPE.join(' '));
    assert.equal(decodeJwt(restored.body.access_token as string).scope, SCOPE.join(' '));
  });

  test('wider scope refused: invalid_scope, and the refresh token stays usable', async () => {
    const f = await family({ scope: ['openid', 'offline_access'] });
    const wider = await refreshWith(t.url, f.fixture, f.refreshToken, { scope: 'openid offline_access email' });
    assert.equal(wider.status, 400);
    assert.equal(wider.body.error, 'invalid_scope');
    assert.equal((await refreshWith(t.url, f.fixture, f.refreshToken)).status, 200);
  });

  test('client mismatch: a refresh token presented by another client is invalid_grant', async () => {
    const f = await family();
    const other = await createClient(t.core.db, clock, { type: 'confidential' });
    const attempt = await refreshWith(t.url, other, f.refreshToken);
    assert.equal(attempt.status, 400);
    assert.equal(attempt.body.error, 'invalid_grant');
    const publicOther = await createClient(t.core.db, clock);
    assert.equal((await refreshWith(t.url, publicOther, f.refreshToken)).body.error, 'invalid_grant');
    assert.equal((await refreshWith(t.url, f.fixture, f.refreshToken)).status, 200, 'the owner can still use it');
  });

  test('public clients rotate too and identify with client_id', async () => {
    const f = await family({ fixture: await createClient(t.core.db, clock) });
    const rotated = await refreshWith(t.url, f.fixture, f.refreshToken);
    assert.equal(rotated.status, 200);
    assert.equal((await refreshWith(t.url, f.fixture, f.refreshToken)).body.error, 'invalid_grant');
  });

  test('idle expiry: a refresh token unused for REFRESH_TOKEN_IDLE_TTL is invalid_grant', async () => {
    const f = await family();
    clock.advance(t.config.REFRESH_TOKEN_IDLE_TTL * 1000 - 1000);
    const kept = await refreshWith(t.url, f.fixture, f.refreshToken);
    assert.equal(kept.status, 200, 'used just in time');
    clock.advance(t.config.REFRESH_TOKEN_IDLE_TTL * 1000 + 1000);
    const expired = await refreshWith(t.url, f.fixture, kept.body.refresh_token as string);
    assert.equal(expired.body.error, 'invalid_grant');
  });

  test('absolute expiry: rotation never extends the family past REFRESH_TOKEN_ABSOLUTE_TTL from the login', async () => {
    const f = await family();
    const step = Math.floor(t.config.REFRESH_TOKEN_IDLE_TTL / 2) * 1000;
    let token = f.refreshToken;
    const deadline = clock.now() + t.config.REFRESH_TOKEN_ABSOLUTE_TTL * 1000;
    while (clock.now() + step < deadline) {
      clock.advance(step);
      const r = await refreshWith(t.url, f.fixture, token);
      assert.equal(r.status, 200);
      token = r.body.refresh_token as string;
    }
    clock.set(deadline + 1000);
    const late = await refreshWith(t.url, f.fixture, token);
    assert.equal(late.body.error, 'invalid_grant');
  });

  test('revocation cascade: /revoke of a refresh token revokes its family, including access tokens', async () => {
    const f = await family();
    const rotated = await refreshWith(t.url, f.fixture, f.refreshToken);
    const response = await fetch(`${t.url}/revoke`, {
      method: 'POST',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        authorization: `Basic ${Buffer.from(`${f.fixture.client.id}:${f.fixture.secret}`).toString('base64')}`,
      },
      body: new URLSearchParams({ token: rotated.body.refresh_token as string, token_type_hint: 'refresh_token' }),
    });
    assert.equal(response.status, 200);
    assert.equal((await refreshWith(t.url, f.fixture, rotated.body.refresh_token as string)).body.error, 'invalid_grant');
    assert.equal(await userinfoStatus(rotated.body.access_token as string), 401);
    assert.equal(await userinfoStatus(f.accessToken), 401);
  });

  test('revocation cascade: another client cannot revoke a refresh token it does not own', async () => {
    const f = await family();
    const other = await createClient(t.core.db, clock, { type: 'confidential' });
    await fetch(`${t.url}/revoke`, {
      method: 'POST',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        authorization: `Basic ${Buffer.from(`${other.client.id}:${other.secret}`).toString('base64')}`,
      },
      body: new URLSearchParams({ token: f.refreshToken }),
    });
    assert.equal((await refreshWith(t.url, f.fixture, f.refreshToken)).status, 200);
  });

  test('revocation cascade: deleting the client revokes its families and their access tokens', async () => {
    const f = await family();
    assert.equal(await userinfoStatus(f.accessToken), 200);
    assert.ok(await clientsRepository(t.core.db, clock).delete(f.fixture.client.id));
    assert.equal(await userinfoStatus(f.accessToken), 401);
    assert.equal((await t.core.db.selectFrom('oauth_grants').selectAll().where('client_id', '=', f.fixture.client.id).execute()).length, 0);
  });

  test('revocation cascade: deleting the user revokes their families and their access tokens', async () => {
    const f = await family();
    assert.ok(await usersRepository(t.core.db, clock).delete(f.user.id));
    assert.equal((await refreshWith(t.url, f.fixture, f.refreshToken)).body.error, 'invalid_grant');
    assert.equal(
      (
        await t.core.db
          .selectFrom('revoked_access_tokens')
          .select('jti')
          .where('jti', '=', decodeJwt(f.accessToken).jti as string)
          .execute()
      ).length,
      1,
    );
  });

  test('refresh token refused as bearer: /userinfo answers 401 invalid_token', async () => {
    const f = await family();
    const response = await fetch(`${t.url}/userinfo`, { headers: { authorization: `Bearer ${f.refreshToken}` } });
    assert.equal(response.status, 401);
    assert.match(response.headers.get('www-authenticate') ?? '', /error="invalid_token"/);
  });

  test('refresh token refused as bearer: the resource API answers 401 invalid_token', async () => {
    const f = await family({ scope: ['offline_access', 'users:read'] });
    assert.equal((await fetch(`${t.url}/v1/users/me`, { headers: { authorization: `Bearer ${f.accessToken}` } })).status, 200);
    const response = await fetch(`${t.url}/v1/users/me`, { headers: { authorization: `Bearer ${f.refreshToken}` } });
    assert.equal(response.status, 401);
    assert.match(response.headers.get('www-authenticate') ?? '', /invalid_token/);
  });

  test('an access token presented as a refresh token is invalid_grant', async () => {
    const f = await family();
    assert.equal((await refreshWith(t.url, f.fixture, f.accessToken)).body.error, 'invalid_grant');
  });

  test('refresh_token missing is invalid_request', async () => {
    const f = await family();
    const { status, body } = await refreshWith(t.url, f.fixture, '');
    assert.equal(status, 400);
    assert.equal(body.error, 'invalid_request');
  });
});
