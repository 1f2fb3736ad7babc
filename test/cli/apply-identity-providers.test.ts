// `gatehouse apply` and `gatehouse export` of the top-level `identity_providers:` section
// (docs/configuration-as-code.md, docs/federation.md), against a REAL OpenID provider started here
// (node-oidc-provider, whose discovery document gives the endpoints) and a running app with its database.
// Secrets only by the name of their environment variable; one rule per test.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { executeCommand } from '../../src/cli/execute.js';
import { UsageError } from '../../src/cli/command.js';
import { STRICT_OUTBOUND, type OutboundPolicy } from '../../src/http/outbound/outbound-policy.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { NO_LIMITS } from '../helpers/env.js';
import { createUser } from '../helpers/users.js';
import { startOidcUpstream, type OidcUpstream } from '../helpers/oidc-upstream.js';

const LOOPBACK: OutboundPolicy = { ...STRICT_OUTBOUND, allowedClasses: ['loopback'], allowHttp: true };
const SECRET_ENV = 'APPLY_IDP_SECRET';
const SECRET_VALUE = 'the-upstream-client-secret-value-never-written';
let t: TestApp;
let upstream: OidcUpstream;
let dir: string;
before(async () => {
  t = await startTestApp({ env: NO_LIMITS, outbound: LOOPBACK });
  upstream = await startOidcUpstream({ redirectUris: [`${t.config.ISSUER}/federation/acme/callback`] });
  dir = mkdtempSync(join(tmpdir(), 'gatehouse-apply-idp-'));
  process.env[SECRET_ENV] = SECRET_VALUE;
});
after(async () => {
  rmSync(dir, { recursive: true, force: true });
  await upstream.close();
  await t.close();
});

const run = (...argv: string[]) => executeCommand(argv, t.core) as Promise<Record<string, unknown>>;
let serial = 0;
function fileOf(text: string): string {
  serial += 1;
  const path = join(dir, `idp-${serial}.yaml`);
  writeFileSync(path, text);
  return path;
}
type Step = { action: string; resource: string; id: string; fields?: string[] };
const planOf = async (...argv: string[]) => (await run('apply', ...argv)).plan as Step[];
const provider = (slug: string) => t.core.db.selectFrom('identity_providers').selectAll().where('slug', '=', slug).executeTakeFirst();

/** An OpenID provider (by discovery), a plain OAuth 2.0 one (its endpoints and mappings), and a client offering the first. */
const baseFile = (over: { acmeName?: string; acmeDomains?: string; ghEnabled?: boolean } = {}) => `
identity_providers:
  - slug: acme
    name: ${over.acmeName ?? 'Acme SSO'}
    issuer: ${upstream.issuer}
    client_id: ${upstream.clientId}
    client_secret_env: ${SECRET_ENV}
    domains: [${over.acmeDomains ?? 'acme.example'}]
    provision: true
  - slug: gh
    name: GitHub-like
    kind: oauth2
    authorization_endpoint: ${upstream.issuer}/auth
    token_endpoint: ${upstream.issuer}/token
    userinfo_endpoint: ${upstream.issuer}/gh/user
    scopes: [read:user]
    claims: { sub: id, preferred_username: login }
    client_id: gh-client
    client_secret_env: ${SECRET_ENV}
    link: never${over.ghEnabled === false ? '\n    enabled: false' : ''}
clients:
  - client_id: idp-shop
    client_name: Shop
    token_endpoint_auth_method: none
    grant_types: [authorization_code]
    redirect_uris: [https://shop.example/cb]
    scope: openid
    identity_providers: [acme]
`;

test('apply creates identity providers from the file — an OpenID provider through its discovery document, a plain OAuth 2.0 one with its endpoints — before the clients that offer them', async () => {
  const plan = await planOf('-f', fileOf(baseFile()));
  assert.deepEqual(
    plan.map((s) => `${s.action} ${s.resource} ${s.id}`),
    ['create identity_provider acme', 'create identity_provider gh', 'create client idp-shop'],
  );
  const acme = await provider('acme');
  assert.equal(acme?.token_endpoint, `${upstream.issuer}/token`, 'endpoints from discovery');
  assert.equal(acme?.jwks_uri, `${upstream.issuer}/jwks`);
  assert.deepEqual(acme?.domains, ['acme.example']);
  assert.equal(acme?.provision, true);
  const gh = await provider('gh');
  assert.equal(gh?.kind, 'oauth2');
  assert.deepEqual(gh?.claims, { sub: 'id', preferred_username: 'login' });
  assert.equal(gh?.link, 'never');
  const client = await t.core.db.selectFrom('clients').select('identity_providers').where('id', '=', 'idp-shop').executeTakeFirstOrThrow();
  assert.deepEqual(client.identity_providers, ['acme']);
  const events = await t.core.db.selectFrom('audit_events').select('type').where('type', '=', 'admin.identity_provider.created').execute();
  assert.equal(events.length, 2);
});

test('apply of identity providers is idempotent: the same file again plans nothing', async () => {
  assert.deepEqual(await planOf('-f', fileOf(baseFile()), '--dry-run'), []);
  assert.deepEqual(await planOf('-f', fileOf(baseFile())), []);
});

test('apply updates a provider naming the fields that differ (the plan as for other sections), and enabled: false disables one, links kept', async () => {
  const user = await createUser(t.core.db, t.core.clock, {});
  const gh = await provider('gh');
  await t.core.db.insertInto('federated_identities').values({ provider_id: gh!.id, subject: '42', user_id: user.id, email: null }).execute();
  const changed = baseFile({ acmeName: 'Acme Single Sign-On', acmeDomains: 'acme.example, acme.test', ghEnabled: false });
  const dry = await planOf('-f', fileOf(changed), '--dry-run');
  assert.deepEqual(dry, [
    { action: 'update', resource: 'identity_provider', id: 'acme', fields: ['domains', 'name'] },
    { action: 'update', resource: 'identity_provider', id: 'gh', fields: ['enabled'] },
  ]);
  assert.equal((await provider('acme'))?.name, 'Acme SSO', 'a dry run changes nothing');
  assert.deepEqual(await planOf('-f', fileOf(changed)), dry);
  assert.equal((await provider('acme'))?.name, 'Acme Single Sign-On');
  assert.equal((await provider('gh'))?.enabled, false);
  const links = await t.core.db.selectFrom('federated_identities').select('subject').where('user_id', '=', user.id).execute();
  assert.equal(links.length, 1, 'disabling keeps the links');
  const updated = await t.core.db.selectFrom('audit_events').select('changed_fields').where('type', '=', 'admin.identity_provider.updated').execute();
  assert.ok(updated.some((e) => JSON.stringify(e.changed_fields) === JSON.stringify(['enabled'])));
});

test("export → apply --dry-run is an empty plan for identity providers; export writes the variable's name, never a secret", async () => {
  const out = join(dir, 'exported.yaml');
  const written = await run('export', '-o', out);
  assert.equal(written.identity_providers, 2);
  const exported = readFileSync(out, 'utf8');
  assert.ok(!exported.includes(SECRET_VALUE), 'no secret in the export');
  assert.match(exported, new RegExp(`client_secret_env: ${SECRET_ENV}`));
  assert.doesNotMatch(exported, /client_secret:/);
  assert.match(exported, /enabled: false/, 'a disabled provider is exported as such');
  assert.doesNotMatch(exported, /jwks_uri|authorization_response_iss/, 'an OpenID provider is written with its issuer; its endpoints are discovered again');
  assert.deepEqual(await planOf('-f', out, '--dry-run'), []);
  // JSON on stdout is an apply file as it is.
  const json = fileOf(JSON.stringify(await run('export')));
  assert.deepEqual(await planOf('-f', json, '--dry-run'), []);
});

test('trust_mfa round-trips through apply and export, and a plain OAuth 2.0 entry cannot be trusted for the second factor', async () => {
  const base = baseFile({ acmeName: 'Acme Single Sign-On', acmeDomains: 'acme.example, acme.test', ghEnabled: false });
  const trusted = base.replace('    provision: true', '    provision: true\n    trust_mfa: true');
  assert.deepEqual(await planOf('-f', fileOf(trusted)), [{ action: 'update', resource: 'identity_provider', id: 'acme', fields: ['trust_mfa'] }]);
  assert.equal((await provider('acme'))?.trust_mfa, true);
  const exported = ((await run('export')).identity_providers as { slug: string; trust_mfa?: boolean }[]).find((p) => p.slug === 'acme');
  assert.equal(exported?.trust_mfa, true);
  assert.deepEqual(
    await planOf('-f', fileOf(base)),
    [{ action: 'update', resource: 'identity_provider', id: 'acme', fields: ['trust_mfa'] }],
    'absent means off',
  );
  const oauth2Trusted = base.replace('    link: never', '    link: never\n    trust_mfa: true');
  await assert.rejects(run('apply', '-f', fileOf(oauth2Trusted)), (error: Error) =>
    /identity_providers\[1\]\.trust_mfa: only an OpenID Connect provider/.test(error.message),
  );
});

test('store_tokens round-trips through apply and export; absent means off', async () => {
  const base = baseFile({ acmeName: 'Acme Single Sign-On', acmeDomains: 'acme.example, acme.test', ghEnabled: false });
  const storing = base.replace('    provision: true', '    provision: true\n    store_tokens: true');
  assert.deepEqual(await planOf('-f', fileOf(storing)), [{ action: 'update', resource: 'identity_provider', id: 'acme', fields: ['store_tokens'] }]);
  assert.equal((await provider('acme'))?.store_tokens, true);
  const exported = ((await run('export')).identity_providers as { slug: string; store_tokens?: boolean }[]).find((p) => p.slug === 'acme');
  assert.equal(exported?.store_tokens, true);
  assert.deepEqual(
    await planOf('-f', fileOf(base)),
    [{ action: 'update', resource: 'identity_provider', id: 'acme', fields: ['store_tokens'] }],
    'absent means off',
  );
  assert.equal((await provider('acme'))?.store_tokens, false);
});

test('a literal secret in an identity_providers entry is refused, naming where, before any change', async () => {
  const text = baseFile().replace(`client_id: gh-client`, 'client_id: gh-client\n    client_secret: hunter2');
  const before = await t.core.db
    .selectFrom('audit_events')
    .select((eb) => eb.fn.countAll<string>().as('n'))
    .executeTakeFirstOrThrow();
  await assert.rejects(
    run('apply', '-f', fileOf(text)),
    (error: Error) => error instanceof UsageError && /identity_providers\[1\]\.client_secret: a secret is never written in the file/.test(error.message),
  );
  const after = await t.core.db
    .selectFrom('audit_events')
    .select((eb) => eb.fn.countAll<string>().as('n'))
    .executeTakeFirstOrThrow();
  assert.equal(after.n, before.n);
});

test('an entry the rules refuse names its place (identity_providers[0].issuer), and nothing of the file is applied', async () => {
  const text = baseFile({ acmeName: 'Renamed' }).replace(`issuer: ${upstream.issuer}`, 'issuer: http://127.0.0.1:9/nothing-here');
  await assert.rejects(
    run('apply', '-f', fileOf(text)),
    (error: Error) => error instanceof UsageError && /identity_providers\[0\]\.issuer: discovery failed/.test(error.message),
  );
  assert.equal((await provider('acme'))?.name, 'Acme Single Sign-On');
});

test("a provider's secret variable unset where apply runs is a warning, not an error: the server reads it at each use", async () => {
  const text = baseFile({ acmeName: 'Acme Single Sign-On', acmeDomains: 'acme.example, acme.test', ghEnabled: false }).replaceAll(
    `client_secret_env: ${SECRET_ENV}`,
    'client_secret_env: APPLY_IDP_UNSET_HERE',
  );
  delete process.env.APPLY_IDP_UNSET_HERE;
  const result = await run('apply', '-f', fileOf(text), '--dry-run');
  assert.deepEqual(
    (result.plan as Step[]).map((s) => s.fields),
    [['client_secret_env'], ['client_secret_env']],
  );
  assert.match(String((result.warnings as string[])[0]), /identity_providers\[0\]\.client_secret_env: APPLY_IDP_UNSET_HERE is not set here/);
});

test('a provider not in the file is deleted only with --prune (its links go, the users stay), and reported otherwise', async () => {
  const withoutGh = baseFile({ acmeName: 'Acme Single Sign-On', acmeDomains: 'acme.example, acme.test' }).replace(/ {2}- slug: gh[\s\S]*?(?=clients:)/, '');
  const kept = await run('apply', '-f', fileOf(withoutGh));
  assert.deepEqual(kept.not_deleted, [{ resource: 'identity_provider', id: 'gh' }]);
  assert.ok(await provider('gh'));
  const pruned = await planOf('-f', fileOf(withoutGh), '--prune');
  assert.deepEqual(pruned, [{ action: 'delete', resource: 'identity_provider', id: 'gh' }]);
  assert.equal(await provider('gh'), undefined);
  assert.equal((await t.core.db.selectFrom('federated_identities').select('subject').where('subject', '=', '42').execute()).length, 0);
  assert.ok((await t.core.db.selectFrom('users').select('id').execute()).length > 0, 'the users stay');
});
