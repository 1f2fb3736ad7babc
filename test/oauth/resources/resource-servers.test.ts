// Resource servers as data (docs/resource-servers.md): the registry and its CLI, scopes from the registry,
// RFC 8707 audiences (one per token, its scopes only), and introspection by resource servers (RFC 7662).
// Real client libraries (openid-client, oauth4webapi) request the tokens.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import * as client from 'openid-client';
import * as oauth from 'oauth4webapi';
import { decodeJwt } from 'jose';
import type { TestApp } from '../../helpers/app.js';
import { browserlessLogin } from '../../helpers/browserless-login.js';
import { PASSWORD } from '../../helpers/users.js';
import { createClient, REDIRECT_URI } from '../../helpers/oauth-fixtures.js';
import { sha256 } from '../../../src/crypto/random.js';
import type { User } from '../../../src/storage/repositories/users-repository.js';
import { authorizeQuery } from '../../interaction/browserless.js';
import { Browser, parseForm } from '../../helpers/browser.js';
import { MAX_RESOURCES } from '../../../src/oauth/authorize/check-resource.js';
import { resourcesWorld, tokenOf, type Created } from './fixture.js';

let t: TestApp;
let notes: Created;
let files: Created;
let user: User;
const insecure = { [oauth.allowInsecureRequests]: true };
const world = resourcesWorld();
const { cli, serviceClient, clientCredentials } = world;

before(async () => {
  ({ t, notes, files, user } = await world.start());
});
after(() => t.close());

describe('registry and CLI', () => {
  test('resource-servers create prints identifier, name, scopes and introspection credentials whose secret is stored only as a hash', async () => {
    assert.equal(notes.identifier, 'https://notes.example/api');
    assert.equal(notes.name, 'Notes');
    assert.deepEqual(notes.scopes, [
      { name: 'notes:read', description: 'Read your notes' },
      { name: 'notes:write', description: 'Write notes for you' },
    ]);
    assert.match(notes.client_secret, /^[A-Za-z0-9_-]{43}$/);
    const row = await t.core.db.selectFrom('clients').select(['secret_hash']).where('id', '=', notes.client_id).executeTakeFirstOrThrow();
    assert.equal(row.secret_hash, sha256(notes.client_secret));
    const listed = (await cli('resource-servers', 'list')).resource_servers as Record<string, unknown>[];
    const entry = listed.find((s) => s.identifier === notes.identifier)!;
    assert.equal(entry.client_id, notes.client_id);
    assert.equal(JSON.stringify(listed).includes(notes.client_secret), false);
  });

  test('the built-in /v1 API and the operator-only admin API are registered on first start and cannot be deleted', async () => {
    const listed = (await cli('resource-servers', 'list')).resource_servers as { identifier: string; operator_only: boolean; scopes: { name: string }[] }[];
    const v1 = listed.find((s) => s.identifier === `${t.url}/v1`)!;
    assert.ok(v1.scopes.some((s) => s.name === 'orders:read'));
    const admin = listed.find((s) => s.identifier === `${t.url}/admin`)!;
    assert.deepEqual(
      admin.scopes.map((s) => s.name),
      ['admin:read', 'admin:write'],
    );
    assert.equal(admin.operator_only, true);
    await assert.rejects(cli('resource-servers', 'delete', `${t.url}/v1`), /built in/);
  });

  test('an identifier or scope name already registered is refused and leaves no introspection client behind', async () => {
    const before = (
      await t.core.db
        .selectFrom('clients')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .executeTakeFirstOrThrow()
    ).n;
    await assert.rejects(
      cli('resource-servers', 'create', '--identifier', 'https://other.example', '--name', 'X', '--scope', 'notes:read=Mine too'),
      /already registered/,
    );
    await assert.rejects(
      cli('resource-servers', 'create', '--identifier', notes.identifier, '--name', 'X', '--scope', 'other:read=Other'),
      /already registered/,
    );
    const afterCount = (
      await t.core.db
        .selectFrom('clients')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .executeTakeFirstOrThrow()
    ).n;
    assert.equal(Number(afterCount), Number(before));
  });

  test('resource-servers create refuses a relative or fragment identifier, OIDC scope names and a lifetime above ACCESS_TOKEN_TTL', async () => {
    await assert.rejects(cli('resource-servers', 'create', '--identifier', '/api', '--name', 'X', '--scope', 'x:read=X'), /absolute URI/);
    await assert.rejects(cli('resource-servers', 'create', '--identifier', 'https://x.example#f', '--name', 'X', '--scope', 'x:read=X'), /fragment/);
    await assert.rejects(cli('resource-servers', 'create', '--identifier', 'https://x.example', '--name', 'X', '--scope', 'openid=X'), /OpenID Connect/);
    await assert.rejects(
      cli(
        'resource-servers',
        'create',
        '--identifier',
        'https://x.example',
        '--name',
        'X',
        '--scope',
        'x:read=X',
        '--access-token-ttl',
        String(t.config.ACCESS_TOKEN_TTL + 1),
      ),
      /ceiling/,
    );
  });

  test('resource-servers delete removes the resource server, its scopes and its introspection client', async () => {
    const gone = (await cli(
      'resource-servers',
      'create',
      '--identifier',
      'https://gone.example',
      '--name',
      'Gone',
      '--scope',
      'gone:read=Gone',
    )) as unknown as Created;
    assert.deepEqual(await cli('resource-servers', 'delete', gone.identifier), { deleted: gone.identifier });
    assert.equal(await t.core.db.selectFrom('clients').select('id').where('id', '=', gone.client_id).executeTakeFirst(), undefined);
    await assert.rejects(
      cli('clients', 'create', '--name', 'c', '--type', 'confidential', '--grant-types', 'client_credentials', '--scope', 'gone:read'),
      /not supported/,
    );
    await assert.rejects(cli('resource-servers', 'delete', gone.identifier), /no resource server/);
  });
});

describe('scopes come from the registry', () => {
  test('client registration accepts a registered scope and refuses an unknown one', async () => {
    await serviceClient('notes:read');
    await assert.rejects(serviceClient('notes:delete'), /scope notes:delete is not supported/);
  });

  test('operator-only scopes are never grantable through /register nor to public clients, only by clients create to a confidential client_credentials client', async () => {
    const admin = await serviceClient('admin:read admin:write');
    const res = await clientCredentials(admin, { resource: `${t.url}/admin` });
    assert.equal(res.status, 200);
    assert.equal(tokenOf(res.body).aud, `${t.url}/admin`);
    await assert.rejects(
      cli(
        'clients',
        'create',
        '--name',
        'spa',
        '--type',
        'public',
        '--grant-types',
        'authorization_code',
        '--redirect-uri',
        'https://spa.example/cb',
        '--scope',
        'openid admin:read',
      ),
      /operator-only/,
    );
    await assert.rejects(cli('registration-token', 'create', '--allow-scope', 'admin:read'), /operator-only/);
    const iat = (await cli('registration-token', 'create', '--allow-grant-types', 'client_credentials', '--allow-scope', 'orders:read')).initial_access_token;
    const registered = await fetch(`${t.url}/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${String(iat)}` },
      body: JSON.stringify({ grant_types: ['client_credentials'], scope: 'orders:read admin:read', client_name: 'sneaky' }),
    });
    assert.equal(registered.status, 400);
    assert.equal(((await registered.json()) as { error: string }).error, 'invalid_client_metadata');
  });

  test('discovery scopes_supported lists the OIDC scopes and the registered ones, not operator-only ones', async () => {
    const document = (await (await fetch(`${t.url}/.well-known/openid-configuration`)).json()) as { scopes_supported: string[] };
    for (const scope of ['openid', 'offline_access', 'orders:read', 'notes:read', 'notes:write', 'files:read'])
      assert.ok(document.scopes_supported.includes(scope), scope);
    assert.equal(document.scopes_supported.includes('admin:read'), false);
  });
});

test('the consent page shows each scope as its resource server describes it, with the resource server name', async () => {
  const shown = (await createClient(t.core.db, t.core.clock, { skipConsent: false, scopes: ['openid', 'notes:read', 'orders:read'] })).client;
  const browser = new Browser(t.url);
  let r = await browser.get(authorizeQuery(shown.id, REDIRECT_URI, { scope: 'openid notes:read orders:read' }));
  r = await browser.get(r.headers.get('location')!);
  const login = parseForm(await r.text());
  r = await browser.post(login.action, { ...login.hidden, username: user.username, password: PASSWORD });
  r = await browser.get(r.headers.get('location')!);
  const html = await r.text();
  assert.match(html, /Read your notes <span class="muted">\(Notes: notes:read\)/);
  assert.match(html, /See your orders <span class="muted">\(Gatehouse resource API: orders:read\)/);
});

describe('RFC 8707 resource at /token (client_credentials)', () => {
  let svc: { id: string; secret: string };
  before(async () => {
    svc = await serviceClient('orders:read notes:read notes:write files:read');
  });

  test('an access token has exactly one audience and carries only the scopes of that resource server', async () => {
    const config = await client.discovery(new URL(t.url), svc.id, undefined, client.ClientSecretBasic(svc.secret), { execute: [client.allowInsecureRequests] });
    const forNotes = await client.clientCredentialsGrant(config, { resource: notes.identifier });
    const claims = decodeJwt(forNotes.access_token);
    assert.equal(claims.aud, notes.identifier);
    assert.equal(claims.scope, 'notes:read notes:write');
    const forApi = await client.clientCredentialsGrant(config, { resource: `${t.url}/v1` });
    assert.equal(decodeJwt(forApi.access_token).aud, `${t.url}/v1`);
    assert.equal(decodeJwt(forApi.access_token).scope, 'orders:read');
  });

  test('without resource, scopes that all belong to one resource server name it as the audience', async () => {
    const res = await clientCredentials(svc, { scope: 'notes:read' });
    assert.equal(tokenOf(res.body).aud, notes.identifier);
  });

  test('scopes of two resource servers without resource are invalid_scope with a description that says so', async () => {
    const res = await clientCredentials(svc, { scope: 'notes:read orders:read' });
    assert.equal(res.status, 400);
    const body = res.body as { error: string; error_description: string };
    assert.equal(body.error, 'invalid_scope');
    assert.match(body.error_description, /several resource servers/);
  });

  test('an unknown resource is invalid_target', async () => {
    const res = await clientCredentials(svc, { resource: 'https://unknown.example/' });
    assert.equal(res.status, 400);
    assert.equal((res.body as { error: string }).error, 'invalid_target');
  });

  test('the client default resource is the audience of a request without resource whose scopes span resource servers', async () => {
    const withDefault = await serviceClient('orders:read notes:read', ['--default-resource', notes.identifier]);
    const res = await clientCredentials(withDefault, {});
    const claims = tokenOf(res.body);
    assert.equal(claims.aud, notes.identifier);
    assert.equal(claims.scope, 'notes:read');
    await assert.rejects(serviceClient('notes:read', ['--default-resource', 'https://unknown.example']), /not a registered resource server/);
  });

  test('the per-resource access-token lifetime is honoured', async () => {
    const res = await clientCredentials(svc, { resource: notes.identifier });
    const body = res.body;
    assert.equal(body.expires_in, 120);
    const claims = tokenOf(body);
    assert.equal(claims.exp! - claims.iat!, 120);
  });

  test('the /v1 API refuses an access token issued for another resource server', async () => {
    const res = await clientCredentials(svc, { resource: notes.identifier });
    const token = String(res.body.access_token);
    const api = await fetch(`${t.url}/v1/orders`, { headers: { authorization: `Bearer ${token}` } });
    assert.equal(api.status, 401);
  });
});

describe('RFC 8707 for a user grant spanning two resource servers (oauth4webapi)', () => {
  let as: oauth.AuthorizationServer;
  let rp: oauth.Client;
  let secret: string;

  before(async () => {
    const fixture = await createClient(t.core.db, t.core.clock, {
      type: 'confidential',
      // admin:read written straight to the row (the CLI would refuse it for this client): /authorize must still refuse it.
      scopes: ['openid', 'offline_access', 'orders:read', 'notes:read', 'files:read', 'admin:read'],
      grantTypes: ['authorization_code', 'refresh_token'],
    });
    secret = fixture.secret!;
    rp = { client_id: fixture.client.id };
    as = await oauth.processDiscoveryResponse(new URL(t.url), await oauth.discoveryRequest(new URL(t.url), insecure));
  });

  async function authorize(scope: string, resources: string[]): Promise<URL> {
    const verifier = oauth.generateRandomCodeVerifier();
    const url = new URL(as.authorization_endpoint!);
    url.search = new URLSearchParams(<[string, string][]>[
      ['response_type', 'code'],
      ['client_id', rp.client_id],
      ['redirect_uri', REDIRECT_URI],
      ['scope', scope],
      ['state', 'st'],
      ['code_challenge', await oauth.calculatePKCECodeChallenge(verifier)],
      ['code_challenge_method', 'S256'],
      ...resources.map((r): [string, string] => ['resource', r]),
    ]).toString();
    const callback = await browserlessLogin(url, { username: user.username });
    callback.searchParams.set('verifier', verifier);
    return callback;
  }

  async function exchange(callback: URL, resource?: string): Promise<oauth.TokenEndpointResponse> {
    const verifier = callback.searchParams.get('verifier')!;
    callback.searchParams.delete('verifier');
    const params = oauth.validateAuthResponse(as, rp, callback, 'st');
    const response = await oauth.authorizationCodeGrantRequest(as, rp, oauth.ClientSecretBasic(secret), params, REDIRECT_URI, verifier, {
      ...insecure,
      ...(resource ? { additionalParameters: { resource } } : {}),
    });
    return oauth.processAuthorizationCodeResponse(as, rp, response);
  }

  const refresh = (token: string, resource?: string) =>
    oauth.refreshTokenGrantRequest(as, rp, oauth.ClientSecretBasic(secret), token, {
      ...insecure,
      ...(resource ? { additionalParameters: { resource } } : {}),
    });

  test('a code exchange and a refresh with resource=X each return a token for X alone, with only its scopes', async () => {
    const callback = await authorize('openid offline_access orders:read notes:read', [`${t.url}/v1`, notes.identifier]);
    const first = await exchange(callback, notes.identifier);
    assert.deepEqual(decodeJwt(first.access_token).aud, [notes.identifier, `${t.config.ISSUER}/userinfo`], 'an openid token names /userinfo too');
    assert.equal(first.scope, 'openid offline_access notes:read');
    const second = await oauth.processRefreshTokenResponse(as, rp, await refresh(first.refresh_token!, `${t.url}/v1`));
    assert.deepEqual(decodeJwt(second.access_token).aud, [`${t.url}/v1`, `${t.config.ISSUER}/userinfo`], 'an openid token names /userinfo too');
    assert.equal(second.scope, 'openid offline_access orders:read');
  });

  test('a refresh without resource for a grant spanning two resource servers is invalid_scope and does not spend the refresh token', async () => {
    const first = await exchange(await authorize('openid offline_access orders:read notes:read', []), notes.identifier);
    const refused = await refresh(first.refresh_token!);
    assert.equal(refused.status, 400);
    assert.equal(((await refused.json()) as { error: string }).error, 'invalid_scope');
    const unknown = await refresh(first.refresh_token!, 'https://unknown.example');
    assert.equal(((await unknown.json()) as { error: string }).error, 'invalid_target');
    const ok = await oauth.processRefreshTokenResponse(as, rp, await refresh(first.refresh_token!, notes.identifier));
    assert.deepEqual(decodeJwt(ok.access_token).aud, [notes.identifier, `${t.config.ISSUER}/userinfo`], 'an openid token names /userinfo too');
  });

  test('a resource server without offline access gets no token from a refresh token', async () => {
    const first = await exchange(await authorize('openid offline_access files:read orders:read', []), files.identifier);
    assert.deepEqual(decodeJwt(first.access_token).aud, [files.identifier, `${t.config.ISSUER}/userinfo`], 'an openid token names /userinfo too');
    const refused = await refresh(first.refresh_token!, files.identifier);
    assert.equal(((await refused.json()) as { error: string }).error, 'invalid_target');
    // Without resource, the only resource left within reach is /v1.
    const ok = await oauth.processRefreshTokenResponse(as, rp, await refresh(first.refresh_token!));
    assert.deepEqual(decodeJwt(ok.access_token).aud, [`${t.url}/v1`, `${t.config.ISSUER}/userinfo`], 'an openid token names /userinfo too');
  });

  test('a refresh without resource of a grant bound to a resource server without offline access is invalid_target and does not spend the refresh token', async () => {
    const first = await exchange(await authorize('openid offline_access files:read', [files.identifier]), files.identifier);
    for (let i = 0; i < 2; i++) {
      // A spent token would answer invalid_grant the second time (reuse), and revoke the grant.
      const refused = await refresh(first.refresh_token!);
      assert.equal(((await refused.json()) as { error: string }).error, 'invalid_target');
    }
  });

  /** The `error` of /authorize's redirect for this scope and these resource parameters, or the interaction page it leads to. */
  const redirect = async (scope: string, resources: string[]) => {
    const url = new URL(as.authorization_endpoint!);
    url.search = new URLSearchParams(<[string, string][]>[
      ['response_type', 'code'],
      ['client_id', rp.client_id],
      ['redirect_uri', REDIRECT_URI],
      ['scope', scope],
      ['state', 'st'],
      ['code_challenge', 'x'.repeat(43)],
      ['code_challenge_method', 'S256'],
      ...resources.map((r): [string, string] => ['resource', r]),
    ]).toString();
    const res = await fetch(url, { redirect: 'manual' });
    const location = res.headers.get('location')!;
    return location.startsWith('/') ? location : new URL(location).searchParams.get('error');
  };

  test('/authorize: an unknown resource is invalid_target, a scope outside the requested resources invalid_scope, operator-only scopes never', async () => {
    assert.equal(await redirect('openid notes:read', ['https://unknown.example']), 'invalid_target');
    assert.equal(await redirect('openid notes:read orders:read', [notes.identifier]), 'invalid_scope');
    assert.equal(await redirect('openid admin:read', []), 'invalid_scope');
    assert.equal(await redirect('openid', [`${t.url}/admin`]), 'invalid_target');
  });

  test('/authorize: more than MAX_RESOURCES resource parameters are invalid_request (what an interaction parks stays bounded)', async () => {
    // Distinct values: repeats of one resource count once.
    const many = Array.from({ length: MAX_RESOURCES + 1 }, (_, i) => `https://r${i}.example/api`);
    assert.equal(await redirect('openid notes:read', many), 'invalid_request');
    assert.equal(await redirect('openid notes:read', many.slice(1)), 'invalid_target', 'MAX_RESOURCES values are read, each then checked');
  });
});
