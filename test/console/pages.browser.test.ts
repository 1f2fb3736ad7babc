// The admin console's tasks in a real browser (Debian's chromium through playwright-core), each against the
// public admin API: users (with grants and consents), applications, APIs, identity providers (docs/console.md).
// Pages are checked with axe-core at 390 and 1280 px in light and dark and kept as screenshots in
// test-output/console/ (git-ignored).
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { PASSWORD, SIGN_IN, createUser } from '../helpers/users.js';
import { enrollTotp } from '../interaction/mfa/enroll.js';
import { userWithGrant } from '../admin/user-access-fixture.js';
import { consentsRepository } from '../../src/storage/repositories/consents-repository.js';
import { NO_PASSWORD_HASH } from '../../src/user-rules/sign-in-ways.js';
import { consoleWorld } from './console-browser.js';

// Each test keeps the runner's 3-minute limit; the suite as a whole may take longer on a loaded machine.
describe('the admin console’s tasks in a real browser', { timeout: 15 * 60_000 }, () => {
  const { world, signIn, until, heading, nav, check } = consoleWorld();

  test('users: search, a double-clicked create makes one user, edit profile and attributes, set password, reset second factors, end sessions, the audit trail', async () => {
    const context = await world.browser.newContext({ viewport: { width: 390, height: 900 } });
    const page = await signIn(context, world.writer, world.writer.secret);
    await heading(page, 'Overview');
    await nav(page, 'Users');
    const username = `made-in-console-${Date.now()}`;
    await page.getByLabel('Username', { exact: true }).fill(username);
    await page.getByLabel('Password', { exact: true }).fill('a long enough password');
    await page.getByLabel('Name', { exact: true }).fill('Console Made');
    await page.getByRole('button', { name: 'Create user' }).dblclick();
    await heading(page, `User ${username}`);
    const made = (await (await world.f.api(`/admin/v1/users?q=${username}`)).json()) as { data: { id: string }[] };
    assert.equal(made.data.length, 1, 'a double click makes one user');
    const id = made.data[0]!.id;

    // Search finds it by prefix and by id.
    await nav(page, 'Users');
    const searchbox = page.getByLabel('Username or e-mail (beginning), or user id');
    await searchbox.fill(username.slice(0, 16));
    await searchbox.press('Enter');
    await page.getByRole('link', { name: username }).waitFor();
    await searchbox.fill(id);
    await searchbox.press('Enter');
    await page.getByRole('link', { name: username }).click();
    await heading(page, `User ${username}`);

    await page.getByLabel('Family name', { exact: true }).fill('Madeson');
    await page.getByRole('button', { name: 'Save profile' }).click();
    await page.getByText('Profile saved.').waitFor();
    assert.equal(((await (await world.f.api(`/admin/v1/users/${id}`)).json()) as { family_name: string }).family_name, 'Madeson');
    await page.getByLabel('Attributes (JSON object)').fill('{"team": "blue"}');
    await page.getByRole('button', { name: 'Save attributes' }).click();
    await page.getByText('Attributes saved.').waitFor();
    assert.deepEqual(((await (await world.f.api(`/admin/v1/users/${id}`)).json()) as { attributes: unknown }).attributes, { team: 'blue' });

    await page.getByLabel('New password', { exact: true }).fill('another long password');
    await page.getByRole('button', { name: 'Set password' }).click();
    await page.getByText('Password set.').waitFor();

    // A user with a world.browser session (signed in at /account) and a second factor: end the session, reset the factor.
    const other = await createUser(world.f.t.core.db, world.f.t.core.clock, SIGN_IN);
    const otherContext = await world.browser.newContext();
    const otherPage = await otherContext.newPage();
    await otherPage.goto(`${world.f.t.url}/account`);
    await otherPage.getByLabel('Username', { exact: true }).fill(other.username);
    await otherPage.getByLabel('Password', { exact: true }).fill(PASSWORD);
    await otherPage.getByLabel('Password', { exact: true }).press('Enter');
    await otherPage.getByRole('heading', { level: 1, name: 'Your account' }).waitFor();
    await otherContext.close();
    await enrollTotp(world.f.t, other);
    await page.goto(`${world.f.t.url}/console/users/${other.id}`);
    await heading(page, `User ${other.username}`);
    await page.getByRole('button', { name: /^End session / }).click();
    await page.getByText('Ended.').waitFor();
    const sessions = (await (await world.f.api(`/admin/v1/sessions?user_id=${other.id}`)).json()) as { data: unknown[] };
    assert.equal(sessions.data.length, 0, 'the session is ended');
    await heading(page, `User ${other.username}`);
    page.once('dialog', (dialog) => dialog.accept());
    await page.getByRole('button', { name: 'Reset second factors' }).click();
    await page.getByText('No second factor is set up.').waitFor();
    assert.deepEqual(((await (await world.f.api(`/admin/v1/users/${other.id}`)).json()) as { second_factors: string[] }).second_factors, []);
    const audit = page.getByRole('table', { name: `The latest events about ${other.username}` });
    await audit.getByText('admin.user.second_factors_reset').waitFor();
    await context.close();
  });

  test('applications: register (secret shown once), edit, rotate the secret, try-it URL, delete; signing keys rotate; audit filter', async () => {
    const context = await world.browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await signIn(context, world.writer, world.writer.secret);
    await heading(page, 'Overview');
    await nav(page, 'Applications');
    await page.getByLabel('Name', { exact: true }).fill('Console RP');
    await page.getByLabel('Redirect URIs', { exact: true }).fill('https://rp.example/cb');
    await page.getByRole('button', { name: 'Register application' }).dblclick();
    const secret = await page.locator('[data-secret]').textContent();
    assert.ok(secret && secret.length > 20, 'the secret is shown');
    const list = (await (await world.f.api('/admin/v1/clients?limit=100')).json()) as { data: { client_id: string; client_name: string }[] };
    const made = list.data.filter((c) => c.client_name === 'Console RP');
    assert.equal(made.length, 1, 'a double click registers one application');
    await page.locator('.notice a').click();
    await heading(page, 'Application Console RP');
    assert.equal(await page.locator('[data-secret]').count(), 0, 'the secret is not shown again');
    assert.match((await page.locator('[data-try-it]').textContent()) ?? '', /\/authorize\?response_type=code&client_id=/);
    await page.getByLabel('Redirect URIs', { exact: true }).fill('https://rp.example/cb\nhttps://rp.example/other');
    await page.getByLabel('Allowed browser origins', { exact: true }).fill('https://rp.example');
    await page.getByLabel('Scope', { exact: true }).fill('openid profile email');
    await page.getByLabel('refresh_token', { exact: true }).check();
    await page.getByRole('button', { name: 'Save settings' }).click();
    await page.getByText('Saved.').waitFor();
    const edited = (await (await world.f.api(`/admin/v1/clients/${made[0]!.client_id}`)).json()) as {
      redirect_uris: string[];
      allowed_origins: string[];
      scope: string;
      grant_types: string[];
    };
    assert.deepEqual(
      [edited.redirect_uris, edited.allowed_origins, edited.scope, [...edited.grant_types].sort()],
      [['https://rp.example/cb', 'https://rp.example/other'], ['https://rp.example'], 'openid profile email', ['authorization_code', 'refresh_token']],
    );
    page.once('dialog', (dialog) => dialog.accept());
    await page.getByRole('button', { name: 'Rotate secret' }).click();
    const rotated = await page.locator('[data-secret]').textContent();
    assert.ok(rotated && rotated !== secret);
    page.once('dialog', (dialog) => dialog.accept());
    await page.getByRole('button', { name: 'Delete application' }).click();
    await heading(page, 'Applications');
    assert.equal((await world.f.api(`/admin/v1/clients/${made[0]!.client_id}`)).status, 404);

    await nav(page, 'Signing keys');
    const before = ((await (await world.f.api('/admin/v1/signing-keys')).json()) as { data: unknown[] }).data.length;
    page.once('dialog', (dialog) => dialog.accept());
    await page.getByRole('button', { name: 'Rotate both keys now' }).click();
    await page
      .getByText('Rotated.')
      .or(page.getByRole('heading', { level: 1, name: 'Signing keys' }))
      .first()
      .waitFor();
    await until(async () => (await page.locator('tbody tr').count()) === before + 2, 'two new keys listed');

    await nav(page, 'Audit log');
    await page.getByLabel('Type', { exact: true }).selectOption('signing_key.rotated');
    await page.getByRole('button', { name: 'Filter' }).click();
    await page.getByText('2 events shown.').waitFor();
    assert.match(page.url(), /type=signing_key.rotated/);
    await context.close();
  });

  test('APIs: register one (double click → one API, the introspection secret shown once), edit its scopes and claim mappings, settings, delete', async () => {
    const context = await world.browser.newContext({ viewport: { width: 390, height: 900 } });
    const page = await signIn(context, world.writer, world.writer.secret);
    await heading(page, 'Overview');
    await nav(page, 'APIs');
    const identifier = 'https://notes.example/api';
    await page.getByLabel('Identifier', { exact: true }).fill(identifier);
    await page.getByLabel('Name', { exact: true }).fill('Notes');
    await page.getByLabel('Scope name', { exact: true }).fill('notes:read');
    await page.getByLabel('Description', { exact: true }).fill('Read your notes');
    await page.getByLabel('Attributes in access tokens', { exact: true }).fill('department');
    await page.getByRole('button', { name: 'Register API' }).dblclick();
    const secret = await page.locator('[data-secret]').textContent();
    assert.ok(secret && secret.length > 20, 'the introspection secret is shown');
    const list = (await (await world.f.api('/admin/v1/resource-servers?limit=100')).json()) as { data: { identifier: string }[] };
    assert.equal(list.data.filter((x) => x.identifier === identifier).length, 1, 'a double click registers one API');
    await check(page, 'api-registered');
    await page.locator('.notice a').click();
    await heading(page, 'API Notes');
    assert.equal(await page.locator('[data-secret]').count(), 0, 'the secret is not shown again');
    const read = async () =>
      (await (await world.f.api(`/admin/v1/resource-servers/${encodeURIComponent(identifier)}`)).json()) as {
        name: string;
        scopes: { name: string; description: string; claims?: unknown }[];
      };
    assert.deepEqual((await read()).scopes, [{ name: 'notes:read', description: 'Read your notes', claims: { access_token: ['department'] } }]);

    // A second scope, and the first one's mapping changed: one PATCH of the scopes.
    await page.getByRole('button', { name: 'Add a scope' }).click();
    const added = page.locator('fieldset[data-scope]').nth(1);
    await added.getByLabel('Scope name', { exact: true }).fill('notes:write');
    await added.getByLabel('Description', { exact: true }).fill('Change your notes');
    const first = page.locator('fieldset[data-scope]').first();
    await first.getByLabel('Attributes in access tokens', { exact: true }).fill('department level');
    await first.getByLabel('Attributes in ID tokens and /userinfo', { exact: true }).fill('department');
    await page.getByRole('button', { name: 'Save scopes' }).click();
    await page.getByText('Scopes saved.').waitFor();
    assert.deepEqual((await read()).scopes, [
      { name: 'notes:read', description: 'Read your notes', claims: { access_token: ['department', 'level'], id_token: ['department'] } },
      { name: 'notes:write', description: 'Change your notes' },
    ]);
    await page.getByRole('table', { name: 'Scopes of Notes' }).getByText('access token: department, level; ID token: department').waitFor();
    await check(page, 'api-scopes');

    // A claim the server sets itself is refused by the API, and said in words beside the form.
    await page.locator('fieldset[data-scope]').first().getByLabel('Attributes in access tokens', { exact: true }).fill('sub');
    await page.getByRole('button', { name: 'Save scopes' }).click();
    await page.getByRole('alert').getByText('reserved claim').waitFor();
    assert.equal((await read()).scopes.length, 2, 'the refused save changed nothing');
    await page.locator('fieldset[data-scope]').first().getByLabel('Attributes in access tokens', { exact: true }).fill('department');
    await page.getByRole('button', { name: 'Remove scope notes:write' }).click();
    await page.getByRole('button', { name: 'Save scopes' }).click();
    await page.getByRole('button', { name: 'Remove scope notes:write' }).waitFor({ state: 'detached' });
    await until(async () => (await page.getByRole('table', { name: 'Scopes of Notes' }).locator('tbody tr').count()) === 1, 'the page shows the saved scopes');
    assert.deepEqual(
      (await read()).scopes.map((x) => x.name),
      ['notes:read'],
      'a removed scope is gone',
    );

    await page.getByLabel('Name', { exact: true }).fill('Notes service');
    await page.getByRole('button', { name: 'Save settings' }).click();
    await heading(page, 'API Notes service');
    page.once('dialog', (dialog) => dialog.accept());
    await page.getByRole('button', { name: 'Delete API' }).click();
    await heading(page, 'APIs');
    assert.equal((await world.f.api(`/admin/v1/resource-servers/${encodeURIComponent(identifier)}`)).status, 404);

    // A built-in API keeps its scope names: only descriptions and mappings are editable, and it has no delete.
    await page.getByRole('link', { name: 'Gatehouse administration API' }).click();
    await heading(page, 'API Gatehouse administration API');
    assert.equal(await page.getByLabel('Scope name', { exact: true }).count(), 0);
    assert.equal(await page.getByRole('button', { name: 'Delete API' }).count(), 0);
    await context.close();
  });

  test('identity providers: add from a preset and as any OpenID Connect or OAuth 2.0 provider, the redirect URI to register, edit, disable and enable, delete', async () => {
    const context = await world.browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await signIn(context, world.writer, world.writer.secret);
    await heading(page, 'Overview');
    await nav(page, 'Identity providers');
    const read = async (slug: string) => world.f.api(`/admin/v1/identity-providers/${slug}`);

    // The GitLab preset for a self-managed GitLab: the issuer is the one field it needs besides the client.
    await page.getByLabel('Provider', { exact: true }).selectOption('gitlab');
    await page.getByLabel('Issuer', { exact: true }).fill(world.upstream.issuer);
    await page.getByLabel('Client id', { exact: true }).fill('gitlab-client');
    await page.getByLabel('Client secret variable', { exact: true }).fill('GITLAB_CLIENT_SECRET');
    await page.getByRole('button', { name: 'Add identity provider' }).dblclick();
    await heading(page, 'Identity provider GitLab');
    const gitlab = (await (await read('gitlab')).json()) as { preset: string; token_endpoint: string; redirect_uri: string };
    assert.match(gitlab.redirect_uri, /\/federation\/gitlab\/callback$/);
    assert.equal(await page.locator('main [data-redirect-uri]').textContent(), gitlab.redirect_uri, 'the redirect URI to register is shown');
    assert.deepEqual([gitlab.preset, gitlab.token_endpoint], ['gitlab', `${world.upstream.issuer}/token`], 'the endpoints come from discovery');
    const all = (await (await world.f.api('/admin/v1/identity-providers?limit=100')).json()) as { data: { slug: string }[] };
    assert.equal(all.data.filter((p) => p.slug === 'gitlab').length, 1, 'a double click adds one provider');

    // Any OpenID Connect provider.
    await nav(page, 'Identity providers');
    await page.getByLabel('Provider', { exact: true }).selectOption('oidc');
    await page.getByLabel('Display name', { exact: true }).fill('Partner login');
    await page.getByLabel('Slug', { exact: true }).fill('partner');
    await page.getByLabel('Issuer', { exact: true }).fill(world.upstream.issuer);
    await page.getByLabel('Client id', { exact: true }).fill('partner-client');
    await page.getByLabel('Client secret variable', { exact: true }).fill('PARTNER_SECRET');
    await page.getByLabel('E-mail domains', { exact: true }).fill('partner.example');
    await page.getByRole('button', { name: 'Add identity provider' }).click();
    await heading(page, 'Identity provider Partner login');
    assert.match((await page.locator('main [data-redirect-uri]').textContent()) ?? '', /\/federation\/partner\/callback$/);

    // Edit: a rename and a second domain (the whole document goes back with PUT and If-Match).
    await page.getByLabel('Display name', { exact: true }).fill('Partner SSO');
    await page.getByLabel('E-mail domains', { exact: true }).fill('partner.example\npartner.test');
    await page.getByLabel('Create a local user on a first sign-in').check();
    await page.getByRole('button', { name: 'Save settings' }).click();
    await heading(page, 'Identity provider Partner SSO');
    const edited = (await (await read('partner')).json()) as { name: string; domains: string[]; provision: boolean; client_id: string };
    assert.deepEqual(
      [edited.name, edited.domains, edited.provision, edited.client_id],
      ['Partner SSO', ['partner.example', 'partner.test'], true, 'partner-client'],
    );
    await check(page, 'identity-provider-edited');

    // Disable, enable.
    page.once('dialog', (dialog) => dialog.accept());
    await page.getByRole('button', { name: 'Disable identity provider' }).click();
    await page.getByText('This provider is disabled.').waitFor();
    assert.equal(((await (await read('partner')).json()) as { enabled: boolean }).enabled, false);
    await page.getByRole('button', { name: 'Enable identity provider' }).click();
    await page.getByRole('button', { name: 'Disable identity provider' }).waitFor();
    const enabled = (await (await read('partner')).json()) as { enabled: boolean; domains: string[] };
    assert.deepEqual([enabled.enabled, enabled.domains], [true, ['partner.example', 'partner.test']], 'enabling changes nothing else');

    // Delete.
    page.once('dialog', (dialog) => dialog.accept());
    await page.getByRole('button', { name: 'Delete identity provider' }).click();
    await heading(page, 'Identity providers');
    assert.equal((await read('partner')).status, 404);

    // A plain OAuth 2.0 provider: its endpoints and which user-info member fills each claim.
    await page.getByLabel('Provider', { exact: true }).selectOption('oauth2');
    await page.getByLabel('Display name', { exact: true }).fill('Forge');
    await page.getByLabel('Authorization endpoint', { exact: true }).fill(`${world.upstream.issuer}/auth`);
    await page.getByLabel('Token endpoint', { exact: true }).fill(`${world.upstream.issuer}/token`);
    await page.getByLabel('User-info endpoint', { exact: true }).fill(`${world.upstream.issuer}/me`);
    await page.getByLabel('Claim mappings', { exact: true }).fill('sub=id\npreferred_username=login');
    await page.getByLabel('Scopes', { exact: true }).fill('read:user');
    await page.getByLabel('Client id', { exact: true }).fill('forge-client');
    await page.getByLabel('Client secret variable', { exact: true }).fill('FORGE_SECRET');
    await check(page, 'identity-providers-add-oauth2');
    await page.getByRole('button', { name: 'Add identity provider' }).click();
    await heading(page, 'Identity provider Forge');
    const forge = (await (await read('forge')).json()) as { kind: string; claims: Record<string, string>; userinfo_endpoint: string };
    assert.deepEqual(
      [forge.kind, forge.claims, forge.userinfo_endpoint],
      ['oauth2', { sub: 'id', preferred_username: 'login' }, `${world.upstream.issuer}/me`],
    );

    // A broken document is said in words: an OAuth 2.0 provider without a subject mapping.
    await nav(page, 'Identity providers');
    await page.getByLabel('Provider', { exact: true }).selectOption('oauth2');
    await page.getByLabel('Display name', { exact: true }).fill('Broken');
    await page.getByLabel('Authorization endpoint', { exact: true }).fill(`${world.upstream.issuer}/auth`);
    await page.getByLabel('Token endpoint', { exact: true }).fill(`${world.upstream.issuer}/token`);
    await page.getByLabel('User-info endpoint', { exact: true }).fill(`${world.upstream.issuer}/me`);
    await page.getByLabel('Claim mappings', { exact: true }).fill('name=name');
    await page.getByLabel('Scopes', { exact: true }).fill('read:user');
    await page.getByLabel('Client id', { exact: true }).fill('x');
    await page.getByLabel('Client secret variable', { exact: true }).fill('X_SECRET');
    await page.getByRole('button', { name: 'Add identity provider' }).click();
    await page.getByRole('alert').getByText('claims').waitFor();
    await context.close();
  });

  test("users: a user's grants and consents are listed and revoked from the console", async () => {
    const g = await userWithGrant(world.f);
    await consentsRepository(world.f.t.core.db, world.f.t.core.clock).grant(g.user.id, g.client.client.id, ['openid', 'orders:read']);
    const context = await world.browser.newContext({ viewport: { width: 390, height: 900 } });
    const page = await signIn(context, world.writer, world.writer.secret);
    await heading(page, 'Overview');
    await page.goto(`${world.f.t.url}/console/users/${g.user.id}`);
    await heading(page, `User ${g.user.username}`);
    await page.getByRole('table', { name: 'Grants' }).getByText(g.client.client.id).waitFor();
    await page.getByRole('table', { name: 'Consents' }).getByText('openid orders:read').waitFor();
    await check(page, 'user-with-grants');
    await page.getByRole('button', { name: /^Revoke grant / }).click();
    await page.getByRole('button', { name: /^Revoke grant / }).waitFor({ state: 'detached' });
    assert.equal(((await (await world.f.api(`/admin/v1/grants?user_id=${g.user.id}`)).json()) as { data: unknown[] }).data.length, 0, 'the grant is revoked');
    await page.getByRole('button', { name: /^Revoke consent / }).click();
    await page.getByRole('button', { name: /^Revoke consent / }).waitFor({ state: 'detached' });
    assert.equal(
      ((await (await world.f.api(`/admin/v1/consents?user_id=${g.user.id}`)).json()) as { data: unknown[] }).data.length,
      0,
      'the consent is revoked',
    );
    const trail = page.getByRole('table', { name: `The latest events about ${g.user.username}` });
    await trail.getByText('admin.grant.revoked').waitFor();
    await context.close();
  });

  test("users: a user's links to identity providers are listed and unlinked; the last way to sign in is refused in words", async () => {
    const provider = (await (await world.f.api('/admin/v1/identity-providers/corp-sso')).json()) as { id: string };
    const link = async (userId: string) =>
      world.f.t.core.db
        .insertInto('federated_identities')
        .values({
          provider_id: provider.id,
          subject: `corp-${userId}`,
          user_id: userId,
          email: 'someone@corp.example',
          created_at: new Date(world.clock.now()),
          last_used_at: null,
        })
        .execute();
    const withPassword = await createUser(world.f.t.core.db, world.f.t.core.clock, SIGN_IN);
    await link(withPassword.id);
    const onlyLinked = await createUser(world.f.t.core.db, world.f.t.core.clock, SIGN_IN);
    await world.f.t.core.db.updateTable('users').set({ password_hash: NO_PASSWORD_HASH }).where('id', '=', onlyLinked.id).execute();
    await link(onlyLinked.id);

    const context = await world.browser.newContext({ viewport: { width: 390, height: 900 } });
    const page = await signIn(context, world.writer, world.writer.secret);
    await heading(page, 'Overview');
    await page.goto(`${world.f.t.url}/console/users/${onlyLinked.id}`);
    await heading(page, `User ${onlyLinked.username}`);
    await page
      .getByRole('table', { name: `Identity providers ${onlyLinked.username} signs in with` })
      .getByText(`corp-${onlyLinked.id}`)
      .waitFor();
    page.once('dialog', (dialog) => dialog.accept());
    await page.getByRole('button', { name: 'Unlink Corp SSO' }).click();
    await page
      .getByRole('alert')
      .getByText(/last way to sign in|password/i)
      .waitFor();
    assert.equal(
      ((await (await world.f.api(`/admin/v1/users/${onlyLinked.id}/identities`)).json()) as { data: unknown[] }).data.length,
      1,
      'the only way in stays',
    );

    await page.goto(`${world.f.t.url}/console/users/${withPassword.id}`);
    await heading(page, `User ${withPassword.username}`);
    await check(page, 'user-with-identity');
    page.once('dialog', (dialog) => dialog.accept());
    await page.getByRole('button', { name: 'Unlink Corp SSO' }).click();
    await page.getByText('Not linked to any identity provider.').waitFor();
    assert.equal(((await (await world.f.api(`/admin/v1/users/${withPassword.id}/identities`)).json()) as { data: unknown[] }).data.length, 0, 'unlinked');
    await context.close();
  });

  test('identity providers: an edit in the console keeps the switches it does not show (trust_mfa, store_tokens) and the upstream tokens stored under them', async () => {
    const db = world.f.t.core.db;
    await db.updateTable('identity_providers').set({ trust_mfa: true, store_tokens: true }).where('slug', '=', 'corp-sso').execute();
    const provider = (await (await world.f.api('/admin/v1/identity-providers/corp-sso')).json()) as { id: string; name: string };
    const user = await createUser(db, world.f.t.core.clock, SIGN_IN);
    await db.insertInto('federated_identities').values({ provider_id: provider.id, subject: 'corp-kept', user_id: user.id, email: null }).execute();
    await db
      .insertInto('federated_identity_tokens')
      .values({
        provider_id: provider.id,
        subject: 'corp-kept',
        sealed: 'v1.sealed',
        expires_at: null,
        has_refresh_token: false,
        scope: null,
        stored_at: new Date(),
      })
      .execute();

    const context = await world.browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await signIn(context, world.writer, world.writer.secret);
    await heading(page, 'Overview');
    await page.goto(`${world.f.t.url}/console/identity-providers/corp-sso`);
    await heading(page, `Identity provider ${provider.name}`);
    await page.getByLabel('Display name', { exact: true }).fill('Corp Single Sign-On');
    await page.getByRole('button', { name: 'Save settings' }).click();
    await heading(page, 'Identity provider Corp Single Sign-On');
    const after = (await (await world.f.api('/admin/v1/identity-providers/corp-sso')).json()) as { trust_mfa: boolean; store_tokens: boolean };
    assert.deepEqual([after.trust_mfa, after.store_tokens], [true, true]);
    const kept = await db.selectFrom('federated_identity_tokens').select('subject').where('provider_id', '=', provider.id).execute();
    assert.deepEqual(kept, [{ subject: 'corp-kept' }], 'the stored tokens stay');
    // Back as the other tests found it.
    await db.updateTable('identity_providers').set({ name: provider.name, trust_mfa: false, store_tokens: false }).where('slug', '=', 'corp-sso').execute();
    await context.close();
  });
});
