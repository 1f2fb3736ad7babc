// Custom claims (docs/resource-servers.md, "Claims"): registered scopes map user attributes into the access
// tokens of their resource server and into the id_token and /userinfo; reserved and standard claims can never
// be taken from attributes, neither through the CLI nor from rows written straight to the database.
// Tokens are requested with oauth4webapi.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import * as oauth from 'oauth4webapi';
import { decodeJwt } from 'jose';
import { startTestApp, type TestApp } from '../../helpers/app.js';
import { browserlessLogin } from '../../helpers/browserless-login.js';
import { createUser, PASSWORD } from '../../helpers/users.js';
import { createClient, REDIRECT_URI } from '../../helpers/oauth-fixtures.js';
import { basicAuth, postForm } from '../fixtures.js';
import { executeCommand } from '../../../src/cli/execute.js';
import { UsageError } from '../../../src/cli/command.js';
import type { User } from '../../../src/storage/repositories/users-repository.js';
import { NO_LIMITS } from '../../helpers/env.js';

interface Created {
  identifier: string;
  client_id: string;
  client_secret: string;
  scopes: { name: string; claims?: Record<string, string[]> }[];
}

let t: TestApp;
let a: Created;
let b: Created;
let user: User;
let as: oauth.AuthorizationServer;
let rp: oauth.Client;
let secret: string;
const insecure = { [oauth.allowInsecureRequests]: true };
const cli = (...argv: string[]) => executeCommand(argv, t.core) as Promise<Record<string, unknown>>;

before(async () => {
  t = await startTestApp({ env: NO_LIMITS });
  a = (await cli(
    'resource-servers',
    'create',
    '--identifier',
    'https://a.example',
    '--name',
    'A',
    '--scope',
    'a:read=Read A a:write=Write A',
    '--claim',
    'a:read@department=access_token,id_token',
    '--claim',
    'a:read@level=access_token',
    '--claim',
    'a:write@clearance=id_token',
  )) as unknown as Created;
  b = (await cli(
    'resource-servers',
    'create',
    '--identifier',
    'https://b.example',
    '--name',
    'B',
    '--scope',
    'b:read=Read B',
    '--claim',
    'b:read@team=access_token',
  )) as unknown as Created;
  user = await createUser(t.core.db, t.core.clock, { password: PASSWORD });
  await cli('users', 'set-attribute', user.username, 'department', 'sales');
  await cli('users', 'set-attribute', user.username, 'level', '3');
  await cli('users', 'set-attribute', user.username, 'team', '["x","y"]');
  await cli('users', 'set-attribute', user.username, 'clearance', '{"secret":true}');
  const fixture = await createClient(t.core.db, t.core.clock, {
    type: 'confidential',
    scopes: ['openid', 'profile', 'offline_access', 'a:read', 'a:write', 'b:read', 'orders:read'],
    grantTypes: ['authorization_code', 'refresh_token', 'client_credentials'],
  });
  secret = fixture.secret!;
  rp = { client_id: fixture.client.id };
  as = await oauth.processDiscoveryResponse(new URL(t.url), await oauth.discoveryRequest(new URL(t.url), insecure));
});
after(() => t.close());

/** Authorization code flow; `resource` names the token's audience, `alsoAuthorize` further resources of the grant. */
async function codeTokens(who: User, scope: string, resource: string, alsoAuthorize: string[] = []): Promise<oauth.TokenEndpointResponse> {
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
    ...[resource, ...alsoAuthorize].map((r): [string, string] => ['resource', r]),
  ]).toString();
  const callback = await browserlessLogin(url, { username: who.username });
  const params = oauth.validateAuthResponse(as, rp, callback, 'st');
  const response = await oauth.authorizationCodeGrantRequest(as, rp, oauth.ClientSecretBasic(secret), params, REDIRECT_URI, verifier, {
    ...insecure,
    additionalParameters: { resource },
  });
  return oauth.processAuthorizationCodeResponse(as, rp, response);
}

const refresh = async (token: string, resource: string) =>
  oauth.processRefreshTokenResponse(
    as,
    rp,
    await oauth.refreshTokenGrantRequest(as, rp, oauth.ClientSecretBasic(secret), token, { ...insecure, additionalParameters: { resource } }),
  );

async function userinfo(accessToken: string): Promise<Record<string, unknown>> {
  const res = await fetch(`${t.url}/userinfo`, { headers: { authorization: `Bearer ${accessToken}` } });
  assert.equal(res.status, 200);
  return (await res.json()) as Record<string, unknown>;
}

describe('mapping attributes into tokens', () => {
  test('resource-servers create --claim records each scope’s mapping and prints it', () => {
    assert.deepEqual(a.scopes, [
      { name: 'a:read', description: 'Read A', claims: { access_token: ['department', 'level'], id_token: ['department'] } },
      { name: 'a:write', description: 'Write A', claims: { id_token: ['clearance'] } },
    ]);
  });

  test('an access token for resource A carries A’s mapped attributes and not B’s; one for B carries B’s and not A’s', async () => {
    const first = await codeTokens(user, 'openid offline_access a:read b:read', a.identifier, [b.identifier]);
    const forA = decodeJwt(first.access_token);
    assert.deepEqual(forA.aud, [a.identifier, `${t.config.ISSUER}/userinfo`], 'an openid token names /userinfo too');
    assert.equal(forA.department, 'sales');
    assert.equal(forA.level, 3);
    assert.equal('team' in forA, false, 'B’s mapping stays out of A’s token');
    const forB = decodeJwt((await refresh(first.refresh_token!, b.identifier)).access_token);
    assert.deepEqual(forB.aud, [b.identifier, `${t.config.ISSUER}/userinfo`], 'an openid token names /userinfo too');
    assert.deepEqual(forB.team, ['x', 'y']);
    assert.equal('department' in forB || 'level' in forB, false, 'A’s mappings stay out of B’s token');
  });

  test('id_token and userinfo carry id_token-mapped attributes only when the scope was granted', async () => {
    const readOnly = await codeTokens(user, 'openid a:read', a.identifier);
    const idClaims = oauth.getValidatedIdTokenClaims(readOnly)!;
    assert.equal(idClaims.department, 'sales');
    assert.equal('level' in idClaims, false, 'level is mapped into access tokens only');
    assert.equal('clearance' in idClaims, false, 'a:write was not granted');
    const info = await userinfo(readOnly.access_token);
    assert.equal(info.department, 'sales');
    assert.equal('level' in info || 'clearance' in info, false);

    const both = await codeTokens(user, 'openid a:read a:write', a.identifier);
    assert.deepEqual(oauth.getValidatedIdTokenClaims(both)!.clearance, { secret: true });
    assert.deepEqual((await userinfo(both.access_token)).clearance, { secret: true });
    assert.equal('clearance' in decodeJwt(both.access_token), false, 'clearance is mapped into the id_token only');
  });

  test('a missing attribute leaves the claim absent', async () => {
    const other = await createUser(t.core.db, t.core.clock, { password: PASSWORD });
    const tokens = await codeTokens(other, 'openid a:read', a.identifier);
    assert.equal('department' in decodeJwt(tokens.access_token), false);
    assert.equal('department' in oauth.getValidatedIdTokenClaims(tokens)!, false);
  });

  test('client_credentials tokens have no user, so no attribute claims', async () => {
    const res = await postForm(
      `${t.url}/token`,
      { grant_type: 'client_credentials', scope: 'a:read', resource: a.identifier },
      { authorization: basicAuth(rp.client_id, secret) },
    );
    assert.equal(res.status, 200);
    const claims = decodeJwt(String(res.body.access_token));
    assert.equal(claims.aud, a.identifier);
    assert.equal('department' in claims || 'level' in claims, false);
  });

  test('discovery claims_supported lists the attributes mapped into the id_token', async () => {
    const metadata = (await (await fetch(`${t.url}/.well-known/openid-configuration`)).json()) as { claims_supported: string[] };
    assert.ok(metadata.claims_supported.includes('department') && metadata.claims_supported.includes('clearance'));
    assert.equal(metadata.claims_supported.includes('level'), false, 'level goes into access tokens only');
  });
});

describe('reserved claims can never be overridden', () => {
  test('resource-servers create --claim refuses reserved and standard claims, unknown scopes, unknown tokens and bad syntax', async () => {
    const create = (claim: string) =>
      cli('resource-servers', 'create', '--identifier', 'https://c.example', '--name', 'C', '--scope', 'c:read=Read C', '--claim', claim);
    for (const name of ['sub', 'aud', 'scope', 'acr', 'cnf', 'email'])
      await assert.rejects(create(`c:read@${name}=access_token`), (e: Error) => e instanceof UsageError && /--claim/.test(e.message), name);
    await assert.rejects(create('other:read@department=access_token'), /not one of this resource server's scopes/);
    await assert.rejects(create('c:read@department=refresh_token'), /access_token or id_token/);
    await assert.rejects(create('c:read:department=access_token'), /expected SCOPE@ATTRIBUTE=/);
    const tooMany = Array.from({ length: 21 }, (_, i) => ['--claim', `c:read@attr${i}=access_token`]).flat();
    await assert.rejects(
      cli('resource-servers', 'create', '--identifier', 'https://c.example', '--name', 'C', '--scope', 'c:read=Read C', ...tooMany),
      /at most 20 attributes/,
    );
    assert.equal(
      ((await cli('resource-servers', 'list')).resource_servers as { identifier: string }[]).some((s) => s.identifier === 'https://c.example'),
      false,
    );
  });

  test('reserved and standard claims stored behind the CLI’s back (attributes and mappings written to the database) are ignored at issuance', async () => {
    const reserved = {
      sub: 'someone-else',
      aud: 'https://evil.example',
      scope: 'admin:write',
      acr: 'phr',
      amr: ['hwk'],
      cnf: { jkt: 'x' },
      nbf: 1,
      nonce: 'n',
      azp: 'evil',
      sid: 's',
      email: 'evil@example.com',
      department: 'ops',
    };
    const victim = await createUser(t.core.db, t.core.clock, { password: PASSWORD, profile: { name: 'No Email' } });
    await t.core.db
      .updateTable('users')
      .set({ attributes: JSON.stringify(reserved) })
      .where('id', '=', victim.id)
      .execute();
    const names = Object.keys(reserved);
    await t.core.db
      .updateTable('resource_server_scopes')
      .set({ claims: JSON.stringify({ access_token: names, id_token: names }) })
      .where('name', '=', 'b:read')
      .execute();
    t.core.resources.forget();
    try {
      const first = await codeTokens(victim, 'openid offline_access b:read', b.identifier);
      // The refreshed token has no sign-in context of its own: nothing the server sets may come from attributes there either.
      const refreshed = await refresh(first.refresh_token!, b.identifier);
      for (const [kind, claims] of [
        ['access token', decodeJwt(first.access_token)],
        ['refreshed access token', decodeJwt(refreshed.access_token)],
        ['id_token', oauth.getValidatedIdTokenClaims(first)!],
        ['userinfo', await userinfo(refreshed.access_token)],
      ] as const) {
        assert.equal(claims.department, 'ops', `${kind}: the claimable attribute is released`);
        assert.equal(claims.sub, victim.id, kind);
        for (const name of ['scope', 'aud', 'acr', 'amr', 'nbf', 'nonce', 'azp', 'cnf', 'sid', 'email']) {
          assert.notDeepEqual(claims[name], reserved[name as keyof typeof reserved], `${kind}: ${name} never comes from an attribute`);
        }
      }
      assert.deepEqual(decodeJwt(first.access_token).aud, [b.identifier, `${t.config.ISSUER}/userinfo`], 'an openid token names /userinfo too');
      assert.equal(decodeJwt(first.access_token).scope, 'openid offline_access b:read');
    } finally {
      await t.core.db
        .updateTable('resource_server_scopes')
        .set({ claims: JSON.stringify({ access_token: ['team'] }) })
        .where('name', '=', 'b:read')
        .execute();
      t.core.resources.forget();
    }
  });
});
