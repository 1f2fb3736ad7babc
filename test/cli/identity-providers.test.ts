// `gatehouse identity-providers create|list|show|disable|delete` against a real upstream (node-oidc-provider,
// started here) whose discovery document gives the endpoints (docs/federation.md).
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { executeCommand } from '../../src/cli/execute.js';
import { UsageError } from '../../src/cli/command.js';
import { STRICT_OUTBOUND, type OutboundPolicy } from '../../src/http/outbound/outbound-policy.js';
import { createIdentityProviderRecord, identityProviderServiceDeps, cliActor, coreAuditSink } from '../../src/admin-services/index.js';
import { federatedIdentitiesRepository } from '../../src/storage/repositories/federated-identities-repository.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { NO_LIMITS } from '../helpers/env.js';
import { createUser } from '../helpers/users.js';
import { startOidcUpstream, type OidcUpstream } from '../helpers/oidc-upstream.js';

const LOOPBACK: OutboundPolicy = { ...STRICT_OUTBOUND, allowedClasses: ['loopback'], allowHttp: true };
let t: TestApp;
let upstream: OidcUpstream;
before(async () => {
  t = await startTestApp({ env: NO_LIMITS, outbound: LOOPBACK });
  upstream = await startOidcUpstream({ redirectUris: [`${t.config.ISSUER}/federation/acme/callback`] });
});
after(async () => {
  await upstream.close();
  await t.close();
});

/** A usage error whose message matches (the assertion shows the message when it does not). */
async function usageError(work: Promise<unknown>, pattern: RegExp): Promise<void> {
  const error = await work.then(
    () => undefined,
    (e: unknown) => e,
  );
  assert.ok(error instanceof UsageError, `expected a usage error, got ${String(error)}`);
  assert.match(error.message, pattern);
}

const run = (...argv: string[]) => executeCommand(argv, t.core) as Promise<Record<string, unknown>>;
const SECRET = 'the-upstream-secret-value';

test('identity-providers create --issuer: endpoints from the discovery document; prints id, slug and the redirect_uri to register upstream', async () => {
  process.env.ACME_SECRET = SECRET;
  const created = await run(
    'identity-providers',
    'create',
    '--name',
    'Acme SSO',
    '--slug',
    'acme',
    '--issuer',
    upstream.issuer,
    '--client-id',
    upstream.clientId,
    '--client-secret-env',
    'ACME_SECRET',
    '--domain',
    'Acme.example',
    '--provision',
    'on',
  );
  assert.match(String(created.id), /^[0-9a-f-]{36}$/);
  assert.equal(created.slug, 'acme');
  assert.equal(created.redirect_uri, `${t.config.ISSUER}/federation/acme/callback`);
  assert.equal(created.token_endpoint, `${upstream.issuer}/token`);
  assert.equal(created.jwks_uri, `${upstream.issuer}/jwks`);
  assert.deepEqual(created.scopes, ['openid', 'email', 'profile']);
  assert.deepEqual(created.domains, ['acme.example']);
  assert.equal(created.provision, true);
  assert.equal(created.link, 'verified-email');
  assert.equal(created.warning, undefined);
  const shown = await run('identity-providers', 'show', 'acme');
  assert.deepEqual(shown, { ...created });
  const listed = (await run('identity-providers', 'list')).identity_providers as { slug: string }[];
  assert.deepEqual(
    listed.map((p) => p.slug),
    ['acme'],
  );
  const events = await t.core.db.selectFrom('audit_events').select(['type', 'resource_id']).where('type', 'like', 'admin.identity_provider.%').execute();
  assert.deepEqual(events, [{ type: 'admin.identity_provider.created', resource_id: created.id }]);
});

test('identity providers: the client secret is never stored, only the name of the environment variable holding it', async () => {
  const rows = await t.core.db.selectFrom('identity_providers').selectAll().execute();
  assert.ok(rows.length > 0);
  assert.doesNotMatch(JSON.stringify(rows), new RegExp(SECRET));
  assert.equal(rows[0]!.client_secret_env, 'ACME_SECRET');
  await assert.rejects(
    run('identity-providers', 'create', '--issuer', upstream.issuer, '--client-id', 'x', '--client-secret', SECRET),
    /Unknown option|client-secret/,
  );
  await usageError(
    run('identity-providers', 'create', '--name', 'X', '--issuer', upstream.issuer, '--client-id', 'x', '--client-secret-env', SECRET),
    /--client-secret-env .* must be the NAME of an environment variable/,
  );
});

test('identity providers: discovery follows the outbound policy (no loopback, private or metadata address in production)', async () => {
  const strict = { ...identityProviderServiceDeps(t.core, coreAuditSink(t.core)), outbound: { ...STRICT_OUTBOUND, allowHttp: true } };
  await assert.rejects(
    createIdentityProviderRecord(strict, { name: 'Inside', issuer: upstream.issuer, clientId: 'x', clientSecretEnv: 'X' }, { actor: cliActor() }),
    (e: Error & { field?: string }) => e.field === 'issuer' && /loopback/.test(e.message),
  );
  await assert.rejects(
    createIdentityProviderRecord(
      strict,
      {
        name: 'Metadata',
        kind: 'oauth2',
        authorizationEndpoint: 'http://169.254.169.254/authorize',
        tokenEndpoint: 'https://example.com/token',
        userinfoEndpoint: 'https://example.com/user',
        claims: { sub: 'id' },
        scopes: ['user'],
        clientId: 'x',
        clientSecretEnv: 'X',
      },
      { actor: cliActor() },
    ),
    (e: Error & { field?: string }) => e.field === 'authorization_endpoint' && /cloud-metadata/.test(e.message),
  );
});

test('identity-providers create: a slug and a claimed domain belong to one provider; errors name the flag', async () => {
  await usageError(
    run('identity-providers', 'create', '--name', 'Again', '--slug', 'acme', '--issuer', upstream.issuer, '--client-id', 'x', '--client-secret-env', 'X'),
    /slug acme is taken/,
  );
  await usageError(
    run(
      'identity-providers',
      'create',
      '--name',
      'Other',
      '--issuer',
      upstream.issuer,
      '--client-id',
      'x',
      '--client-secret-env',
      'X',
      '--domain',
      'acme.example',
    ),
    /acme.example is already claimed by identity provider acme/,
  );
  await usageError(
    run('identity-providers', 'create', '--name', 'Bad', '--issuer', `${upstream.issuer}/nope`, '--client-id', 'x', '--client-secret-env', 'X'),
    /^--issuer discovery failed/,
  );
  await usageError(
    run(
      'identity-providers',
      'create',
      '--name',
      'Plain',
      '--kind',
      'oauth2',
      '--authorization-endpoint',
      `${upstream.issuer}/auth`,
      '--token-endpoint',
      `${upstream.issuer}/token`,
      '--userinfo-endpoint',
      `${upstream.issuer}/gh/user`,
      '--scope',
      'user',
      '--client-id',
      'x',
      '--client-secret-env',
      'X',
    ),
    /^--claim .*sub/,
  );
  await usageError(
    run('identity-providers', 'create', '--preset', 'gitlub', '--client-id', 'x', '--client-secret-env', 'X'),
    /--preset must be one of google, microsoft, github, gitlab \(got "gitlub"\)/,
  );
});

test('identity-providers create --kind oauth2 with --claim mappings; the warning names an unset secret variable', async () => {
  delete process.env.PLAIN_SECRET;
  const created = await run(
    'identity-providers',
    'create',
    '--name',
    'Plain OAuth',
    '--kind',
    'oauth2',
    '--authorization-endpoint',
    `${upstream.issuer}/auth`,
    '--token-endpoint',
    `${upstream.issuer}/token`,
    '--userinfo-endpoint',
    `${upstream.issuer}/gh/user`,
    '--emails-endpoint',
    `${upstream.issuer}/gh/user/emails`,
    '--scope',
    'read:user user:email',
    '--claim',
    'sub=id',
    '--claim',
    'preferred_username=login',
    '--client-id',
    'x',
    '--client-secret-env',
    'PLAIN_SECRET',
    '--token-endpoint-auth-method',
    'client_secret_post',
  );
  assert.equal(created.slug, 'plain-oauth');
  assert.equal(created.kind, 'oauth2');
  assert.deepEqual(created.claims, { sub: 'id', preferred_username: 'login' });
  assert.match(String(created.warning), /PLAIN_SECRET is not set/);
});

test('identity-providers disable and delete: disabled stays listed; deleting removes its links, never its users', async () => {
  const user = await createUser(t.core.db, t.core.clock, { username: 'linked-user' });
  const provider = await run('identity-providers', 'show', 'plain-oauth');
  await federatedIdentitiesRepository(t.core.db).link({ providerId: String(provider.id), subject: '42', userId: user.id, email: null }, new Date());
  assert.deepEqual(await run('identity-providers', 'disable', 'plain-oauth'), { disabled: 'plain-oauth' });
  assert.equal((await run('identity-providers', 'show', String(provider.id))).enabled, false);
  assert.deepEqual(await run('identity-providers', 'delete', 'plain-oauth'), { deleted: 'plain-oauth' });
  assert.equal(await federatedIdentitiesRepository(t.core.db).find(String(provider.id), '42'), undefined);
  assert.ok(await t.core.db.selectFrom('users').select('id').where('id', '=', user.id).executeTakeFirst());
  await usageError(run('identity-providers', 'show', 'plain-oauth'), /no identity provider/);
});

test('identity-providers create --trust-mfa on: an OpenID provider may be trusted for the second factor, a plain OAuth 2.0 one may not (no id_token says how the user signed in)', async () => {
  const created = await run(
    'identity-providers',
    'create',
    '--name',
    'Trusted SSO',
    '--slug',
    'trusted-sso',
    '--issuer',
    upstream.issuer,
    '--client-id',
    upstream.clientId,
    '--client-secret-env',
    'ACME_SECRET',
    '--trust-mfa',
    'on',
  );
  assert.equal(created.trust_mfa, true);
  await usageError(
    run(
      'identity-providers',
      'create',
      '--name',
      'Plain',
      '--kind',
      'oauth2',
      '--authorization-endpoint',
      `${upstream.issuer}/auth`,
      '--token-endpoint',
      `${upstream.issuer}/token`,
      '--userinfo-endpoint',
      `${upstream.issuer}/gh/user`,
      '--claim',
      'sub=id',
      '--scope',
      'read:user',
      '--client-id',
      'x',
      '--client-secret-env',
      'ACME_SECRET',
      '--trust-mfa',
      'on',
    ),
    /^--trust-mfa .*only an OpenID Connect provider can be trusted/,
  );
  await usageError(
    run('identity-providers', 'create', '--issuer', upstream.issuer, '--client-id', 'x', '--client-secret-env', 'ACME_SECRET', '--trust-mfa', 'yes'),
    /--trust-mfa must be one of on, off/,
  );
});

test('identity-providers create --store-tokens on, update --store-tokens off: the switch is shown, and turning it off deletes every stored upstream token of the provider', async () => {
  const created = await run(
    'identity-providers',
    'create',
    '--name',
    'Keeping SSO',
    '--slug',
    'keeping-sso',
    '--issuer',
    upstream.issuer,
    '--client-id',
    upstream.clientId,
    '--client-secret-env',
    'ACME_SECRET',
    '--store-tokens',
    'on',
  );
  assert.equal(created.store_tokens, true);
  const plain = await run(
    'identity-providers',
    'create',
    '--name',
    'Default SSO',
    '--slug',
    'default-sso',
    '--issuer',
    upstream.issuer,
    '--client-id',
    upstream.clientId,
    '--client-secret-env',
    'ACME_SECRET',
  );
  assert.equal(plain.store_tokens, false, 'off unless asked');
  const user = await createUser(t.core.db, t.core.clock);
  await t.core.db
    .insertInto('federated_identities')
    .values({ provider_id: created.id as string, subject: 'kept-sub', user_id: user.id, email: null })
    .execute();
  await t.core.db
    .insertInto('federated_identity_tokens')
    .values({
      provider_id: created.id as string,
      subject: 'kept-sub',
      sealed: 'v1.sealed',
      expires_at: null,
      has_refresh_token: false,
      scope: null,
      stored_at: new Date(),
    })
    .execute();
  const updated = await run('identity-providers', 'update', 'keeping-sso', '--store-tokens', 'off');
  assert.equal(updated.store_tokens, false);
  assert.deepEqual(
    await t.core.db
      .selectFrom('federated_identity_tokens')
      .select('subject')
      .where('provider_id', '=', created.id as string)
      .execute(),
    [],
  );
  assert.equal((await run('identity-providers', 'update', 'keeping-sso', '--store-tokens', 'on')).store_tokens, true);
  await usageError(run('identity-providers', 'update', 'keeping-sso', '--store-tokens', 'yes'), /--store-tokens must be one of on, off/);
  await usageError(run('identity-providers', 'update', 'keeping-sso'), /nothing to update/);
  await usageError(run('identity-providers', 'update', 'no-such-provider', '--store-tokens', 'on'), /no identity provider/);
});
