// /admin/v1/users/{id}/identities (docs/federation.md): a user's links to upstream providers, read with a
// strong ETag and removed under If-Match (428 without, 412 stale), audited as admin.user.identity_unlinked;
// never the user's last way to sign in (409), as on /account (user-rules/unlink-provider.ts).
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { IdentityProvider } from '../../src/storage/repositories/identity-providers-repository.js';
import { linkedUser, storedIdentityProvider } from '../helpers/identity-providers.js';
import { keyEncryption } from '../../src/crypto/key-encryption.js';
import { sealUpstreamTokens } from '../../src/federation/upstream-tokens.js';
import { federatedIdentityTokensRepository } from '../../src/storage/repositories/federated-identity-tokens-repository.js';
import { adminFixture, problemOf, type AdminFixture, type ListPage } from './fixture.js';

let f: AdminFixture;
let a: IdentityProvider;
let b: IdentityProvider;
before(async () => {
  f = await adminFixture();
  const provider = (slug: string) => storedIdentityProvider(f.t.core.db, slug, { name: `Provider ${slug}` });
  a = await provider('admin-a');
  b = await provider('admin-b');
});
after(() => f.t.close());

type Identity = { id: string; user_id: string; provider: { slug: string; name: string }; subject: string; email: string };

test("the admin API lists a user's links and reads one with a strong ETag (by the provider's id or slug)", async () => {
  const user = await linkedUser(f.t, { email: 'someone@example.org', password: true, providers: [a, b] });
  const list = (await (await f.api(`/admin/v1/users/${user.id}/identities`, { token: f.readToken })).json()) as ListPage<Identity>;
  assert.deepEqual(
    list.data.map((i) => [i.id, i.provider.slug, i.subject, i.email]),
    [
      [a.id, 'admin-a', `sub-${user.id}`, 'someone@example.org'],
      [b.id, 'admin-b', `sub-${user.id}`, 'someone@example.org'],
    ],
  );
  assert.equal(list.pagination.has_more, false);
  const one = await f.api(`/admin/v1/users/${user.id}/identities/admin-b`, { token: f.readToken });
  assert.equal(one.status, 200);
  assert.match(one.headers.get('etag') ?? '', /^"/);
  assert.equal(((await one.json()) as Identity).id, b.id);
  assert.equal((await f.api(`/admin/v1/users/${user.id}/identities/nope`)).status, 404);
  assert.equal((await problemOf(await f.api('/admin/v1/users/00000000-0000-0000-0000-000000000000/identities'))).status, 404);
});

test('removing a link needs If-Match (428 without, 412 stale), needs admin:write, and is audited', async () => {
  const user = await linkedUser(f.t, { email: 'someone@example.org', password: true, providers: [a] });
  const path = `/admin/v1/users/${user.id}/identities/${a.id}`;
  const etag = (await f.api(path)).headers.get('etag')!;
  assert.equal((await f.api(path, { method: 'DELETE' })).status, 428);
  assert.equal((await f.api(path, { method: 'DELETE', headers: { 'if-match': '"stale"' } })).status, 412);
  assert.equal((await f.api(path, { method: 'DELETE', headers: { 'if-match': etag }, token: f.readToken })).status, 403);
  assert.equal((await f.api(path, { method: 'DELETE', headers: { 'if-match': etag } })).status, 204);
  assert.equal((await f.api(path, { method: 'DELETE', headers: { 'if-match': etag } })).status, 404);
  const events = await f.t.core.db
    .selectFrom('audit_events')
    .selectAll()
    .where('type', '=', 'admin.user.identity_unlinked')
    .where('subject', '=', user.id)
    .execute();
  assert.equal(events.length, 1);
  assert.equal((events[0]!.details as { provider: string }).provider, 'admin-a');
});

test('never the last way to sign in: the admin API refuses to remove the only link of a password-less account (409), and removes one of two', async () => {
  const user = await linkedUser(f.t, { email: 'someone@example.org', password: false, providers: [a, b] });
  const del = async (p: IdentityProvider) => {
    const path = `/admin/v1/users/${user.id}/identities/${p.id}`;
    const etag = (await f.api(path)).headers.get('etag')!;
    return f.api(path, { method: 'DELETE', headers: { 'if-match': etag } });
  };
  assert.equal((await del(a)).status, 204);
  const refused = await del(b);
  assert.equal(refused.status, 409);
  assert.equal((await problemOf(refused)).code, 'conflict');
  assert.equal((await f.t.core.db.selectFrom('federated_identities').select('provider_id').where('user_id', '=', user.id).execute()).length, 1);
});

test("--store-tokens on the admin API: a link shows that the upstream's tokens are kept and when they expire, never the tokens", async () => {
  const storing = await storedIdentityProvider(f.t.core.db, 'admin-store', { storeTokens: true });
  const user = await linkedUser(f.t, { email: 'someone@example.org', password: true, providers: [storing, a] });
  const now = f.t.core.clock.now();
  const sealed = sealUpstreamTokens(
    keyEncryption(f.t.core.keyEncryptionKey),
    { providerId: storing.id, subject: `sub-${user.id}` },
    {
      access_token: 'upstream-access-token-SECRET',
      refresh_token: 'upstream-refresh-token-SECRET',
      token_type: 'bearer',
      expires_in: 3600,
      scope: 'openid email',
    },
    now,
  );
  assert.ok(await federatedIdentityTokensRepository(f.t.core.db).put({ ...sealed, expiresAt: new Date(sealed.expiresAt!), storedAt: new Date(now) }));
  const response = await f.api(`/admin/v1/users/${user.id}/identities`, { token: f.readToken });
  const text = await response.text();
  assert.doesNotMatch(text, /SECRET/, 'no token, in any form the test knows, is in the answer');
  assert.ok(!text.includes(sealed.sealed.split('.')[2]!), 'nor the sealed value');
  const list = JSON.parse(text) as ListPage<Identity & { upstream_tokens: Record<string, unknown> | null }>;
  const byProvider = Object.fromEntries(list.data.map((i) => [i.provider.slug, i.upstream_tokens]));
  assert.deepEqual(byProvider['admin-store'], {
    stored_at: new Date(now).toISOString(),
    expires_at: new Date(now + 3_600_000).toISOString(),
    refresh_token: true,
    scope: 'openid email',
  });
  assert.equal(byProvider['admin-a'], null, 'a provider that keeps nothing shows null');
});
