// GET /resource-server/configuration and /resource-server/revocations: what a resource server deployed apart
// from Gatehouse (gatehouse protect) follows, readable with that resource server's own credentials only.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestApp, type TestApp } from '../../helpers/app.js';
import { executeCommand } from '../../../src/cli/execute.js';
import { createClient } from '../../helpers/oauth-fixtures.js';
import { registerResourceServer } from '../../helpers/resource-servers.js';
import { UsageError } from '../../../src/cli/command.js';
import { revocationsRepository } from '../../../src/storage/repositories/revocations-repository.js';

let t: TestApp;
let creds: { client_id: string; client_secret: string };
const basic = (id: string, secret: string) => ({ authorization: `Basic ${Buffer.from(`${id}:${secret}`).toString('base64')}` });

before(async () => {
  t = await startTestApp();
  creds = await registerResourceServer(t.core, 'https://notes.example/api', {
    name: 'Notes',
    scope: 'notes:read=Read notes:admin=Administer',
    routes: ['GET /api/notes*=notes:read', '* /api/admin*=notes:admin;acr=urn:gatehouse:acr:mfa'],
  });
});
after(() => t.close());

test('resource-servers create --route stores the rules; the configuration endpoint hands them to the resource server', async () => {
  const response = await fetch(`${t.url}/resource-server/configuration`, { headers: basic(creds.client_id, creds.client_secret) });
  assert.equal(response.status, 200);
  assert.equal(response.headers.get('cache-control'), 'no-store');
  const body = (await response.json()) as Record<string, unknown>;
  assert.equal(body.resource, 'https://notes.example/api');
  assert.equal(body.issuer, t.url);
  assert.deepEqual(body.routes, ['GET /api/notes*=notes:read', '* /api/admin*=notes:admin;acr=urn:gatehouse:acr:mfa']);
  assert.deepEqual(body.scopes_supported, ['notes:read', 'notes:admin']);
});

test('route rules: a malformed rule, or one naming a scope of another resource server, is refused at creation', async () => {
  await assert.rejects(
    executeCommand(
      ['resource-servers', 'create', '--identifier', 'https://a.example/', '--name', 'A', '--scope', 'a:read=Read', '--route', 'GET notes=a:read'],
      t.core,
    ),
    (error: Error) => error instanceof UsageError && /--route: route "GET notes=a:read": the path must start with \//.test(error.message),
  );
  await assert.rejects(
    executeCommand(
      ['resource-servers', 'create', '--identifier', 'https://b.example/', '--name', 'B', '--scope', 'b:read=Read', '--route', 'GET /x*=users:read'],
      t.core,
    ),
    (error: Error) => error instanceof UsageError && /not a scope of this resource server/.test(error.message),
  );
});

test('only the resource server’s own credentials read the feed: none is 401, another client is 403', async () => {
  const none = await fetch(`${t.url}/resource-server/revocations`);
  assert.equal(none.status, 401);
  const other = await createClient(t.core.db, t.core.clock, { type: 'confidential', grantTypes: ['client_credentials'], scopes: ['users:read'] });
  const wrong = await fetch(`${t.url}/resource-server/revocations`, { headers: basic(other.client.id, other.secret!) });
  assert.equal(wrong.status, 403);
  assert.equal(((await wrong.json()) as { error: string }).error, 'unauthorized_client');
  const badSecret = await fetch(`${t.url}/resource-server/configuration`, { headers: basic(creds.client_id, 'not-the-secret') });
  assert.equal(badSecret.status, 401);
});

test('revocations: the whole live list without a cursor, then what was revoked since the cursor (with its overlap)', async () => {
  const headers = basic(creds.client_id, creds.client_secret);
  const first = (await (await fetch(`${t.url}/resource-server/revocations`, { headers })).json()) as {
    cursor: string;
    complete: boolean;
    tokens: { jti: string }[];
  };
  assert.equal(first.complete, true);
  assert.match(first.cursor, /^\d+$/);
  const expiresAt = new Date(Date.now() + 600_000);
  await revocationsRepository(t.core.db, t.core.clock).revoke([{ jti: 'jti-revoked-after-the-cursor', expiresAt }]);
  const next = (await (await fetch(`${t.url}/resource-server/revocations?since=${first.cursor}`, { headers })).json()) as {
    complete: boolean;
    tokens: { jti: string; exp: number }[];
  };
  assert.equal(next.complete, false);
  assert.deepEqual(
    next.tokens.filter((x) => x.jti === 'jti-revoked-after-the-cursor'),
    [{ jti: 'jti-revoked-after-the-cursor', exp: Math.floor(expiresAt.getTime() / 1000) }],
  );
  const bad = await fetch(`${t.url}/resource-server/revocations?since=yesterday`, { headers });
  assert.equal(bad.status, 400);
  assert.equal(((await bad.json()) as { error: string }).error, 'invalid_request');
});

interface FeedPage {
  cursor: string;
  complete: boolean;
  tokens: { jti: string }[];
  clients: { client_id: string }[];
  next?: string;
}

/** Every page of one listing, following `next`. */
async function allPages(query: string): Promise<FeedPage[]> {
  const headers = basic(creds.client_id, creds.client_secret);
  const pages: FeedPage[] = [];
  let url = `${t.url}/resource-server/revocations${query}`;
  for (;;) {
    const response = await fetch(url, { headers });
    assert.equal(response.status, 200);
    const page = (await response.json()) as FeedPage;
    pages.push(page);
    if (page.next === undefined) return pages;
    assert.ok(pages.length < 10, 'paging ends');
    url = `${t.url}/resource-server/revocations?page=${encodeURIComponent(page.next)}`;
  }
}

test('revocations paging: at most 1,000 entries per answer, `next` continues (tokens, then clients), every page with the cursor of the first', async () => {
  const repository = revocationsRepository(t.core.db, t.core.clock);
  const expiresAt = new Date(Date.now() + 600_000);
  const before = (await allPages('')).flatMap((p) => p.tokens).length;
  await repository.revoke(Array.from({ length: 1_500 }, (_, i) => ({ jti: `paged-${String(i).padStart(4, '0')}`, expiresAt })));
  await repository.revokeClient({ clientId: 'paged-client', coversIssuedUntil: new Date(), expiresAt });
  const pages = await allPages('');
  assert.ok(pages.length >= 2);
  for (const page of pages) assert.ok(page.tokens.length + page.clients.length <= 1_000, 'capped');
  assert.deepEqual(
    pages.map((p) => p.complete),
    [...pages.slice(1).map(() => false), true],
    'complete only on the last page of a full listing',
  );
  assert.equal(new Set(pages.map((p) => p.cursor)).size, 1, 'one cursor for the whole listing');
  const jtis = pages.flatMap((p) => p.tokens.map((x) => x.jti));
  assert.equal(jtis.length, before + 1_500);
  assert.equal(new Set(jtis).size, jtis.length, 'no entry twice');
  assert.ok(pages.flatMap((p) => p.clients).some((c) => c.client_id === 'paged-client'));
  // A catch-up is paged the same way, and only holds what was revoked since.
  const since = await allPages(`?since=${Number(pages[0]!.cursor) - 60_000}`);
  assert.ok(since.length >= 2);
  assert.ok(since.every((p) => p.complete === false));
  assert.ok(since.flatMap((p) => p.tokens).filter((x) => x.jti.startsWith('paged-')).length === 1_500);
});

test('revocations paging: a page token that is not a `next` of this endpoint is 400 invalid_request', async () => {
  const headers = basic(creds.client_id, creds.client_secret);
  for (const page of [
    'not-a-page',
    Buffer.from('[1,null,"x","a"]').toString('base64url'),
    Buffer.from(`[${Date.now() + 3_600_000},null,"t",""]`).toString('base64url'),
    // A NUL in `after` would reach PostgreSQL (which refuses it in text: a 500); an overlong one is no id of ours.
    Buffer.from(JSON.stringify([Date.now() - 1000, null, 't', '\u0000'])).toString('base64url'),
    Buffer.from(JSON.stringify([Date.now() - 1000, null, 'c', 'x'.repeat(256)])).toString('base64url'),
  ]) {
    const response = await fetch(`${t.url}/resource-server/revocations?page=${page}`, { headers });
    assert.equal(response.status, 400, page);
    assert.equal(((await response.json()) as { error: string }).error, 'invalid_request');
  }
});
