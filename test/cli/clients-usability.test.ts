// The CLI for a newcomer: `clients show`, "did you mean …" for mistyped flags and values, ids that never
// look like options, and a ready-to-open authorize URL with its PKCE verifier for every new login client.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { executeCommand, unknownCommand } from '../../src/cli/execute.js';
import { UsageError } from '../../src/cli/command.js';
import { clientsRepository } from '../../src/storage/repositories/clients-repository.js';
import { newClientId } from '../../src/oauth/clients/create-client.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { browserlessLogin } from '../helpers/browserless-login.js';
import { postForm } from '../oauth/fixtures.js';
import { NO_LIMITS } from '../helpers/env.js';
import { createUser, PASSWORD } from '../helpers/users.js';

let t: TestApp;
before(async () => {
  t = await startTestApp({ env: NO_LIMITS });
});
after(() => t.close());

const run = (...argv: string[]) => executeCommand(argv, t.core) as Promise<Record<string, unknown>>;
const usageError = async (argv: string[]): Promise<string> => {
  try {
    await run(...argv);
  } catch (error) {
    assert.ok(error instanceof UsageError, String(error));
    return error.message;
  }
  assert.fail(`${argv.join(' ')} succeeded`);
};
const SERVICE = ['clients', 'create', '--name', 'Svc', '--type', 'confidential', '--grant-types', 'client_credentials', '--scope', 'orders:read'];

test('clients show prints one client without its secret; an unknown id is a usage error', async () => {
  const created = await run(...SERVICE);
  const shown = await run('clients', 'show', String(created.client_id));
  assert.equal(shown.client_id, created.client_id);
  assert.equal(shown.client_name, 'Svc');
  assert.equal(shown.disabled, false);
  assert.ok(!JSON.stringify(shown).includes(String(created.client_secret)));
  assert.match(await usageError(['clients', 'show', 'no-such-client']), /^no client no-such-client$/);
  assert.match(await usageError(['clients', 'show']), /usage: gatehouse clients show \[--\] CLIENT_ID/);
});

test('client ids never start with "-", so a command line never reads one as an option', () => {
  const draws = ['-startsWithDash0000000', '_fine_but_next', 'x'];
  assert.equal(
    newClientId(() => draws.shift()!),
    '_fine_but_next',
  );
  for (let i = 0; i < 2000; i++) assert.ok(!newClientId().startsWith('-'));
});

test('an id that starts with "-" is accepted after "--", and without it the error says so', async () => {
  const repository = clientsRepository(t.core.db, t.core.clock);
  await repository.create({
    id: '-legacy-id',
    name: 'Old',
    type: 'public',
    authMethod: 'none',
    redirectUris: ['https://a.example/cb'],
    postLogoutRedirectUris: [],
    grantTypes: ['authorization_code'],
    scopes: ['openid'],
    jwks: null,
    jwksUri: null,
    idTokenSignedResponseAlg: 'RS256',
    secretHash: null,
    skipConsent: false,
    registrationTokenHash: null,
  });
  assert.equal(
    (await usageError(['clients', 'delete', '-legacy-id'])).split('\n')[0],
    'unknown option -l; an argument that starts with "-" goes after "--", as in: gatehouse clients delete -- -legacy-id',
  );
  assert.equal((await run('clients', 'show', '--', '-legacy-id')).client_id, '-legacy-id');
  assert.deepEqual(await run('clients', 'delete', '--', '-legacy-id'), { deleted: '-legacy-id' });
});

test('a mistyped flag answers "did you mean" and lists the valid flags', async () => {
  const message = await usageError([...SERVICE, '--redirect-url', 'https://a.example/cb']);
  assert.match(message, /^unknown option --redirect-url \(did you mean --redirect-uri\?\); valid options: --name --type --grant-types --scope --redirect-uri /);
  assert.match(message, /\nusage: gatehouse clients create /);
  assert.match(await usageError(['keys', 'rotate', '--algo', 'ES256']), /^unknown option --algo \(did you mean --alg\?\); valid options: --alg\n/);
});

test('a mistyped value names the valid ones: client type, grant type, scope, auth method, algorithm', async () => {
  const base = ['clients', 'create', '--name', 'W'];
  assert.match(
    await usageError([...base, '--type', 'confidental', '--grant-types', 'client_credentials']),
    /^--type must be one of confidential, public \(got "confidental"\) \(did you mean confidential\?\)$/,
  );
  assert.equal(
    await usageError([...base, '--type', 'confidential', '--grant-types', 'client_credential', '--scope', 'orders:read']),
    'invalid_client_metadata: grant type client_credential is not supported (did you mean client_credentials?); supported: authorization_code, refresh_token, client_credentials, urn:ietf:params:oauth:grant-type:device_code, urn:ietf:params:oauth:grant-type:token-exchange',
  );
  assert.match(
    await usageError([...base, '--type', 'confidential', '--grant-types', 'client_credentials', '--scope', 'order:read']),
    /scope order:read is not supported \(did you mean orders:read\?\); supported: openid .* payments:read /,
  );
  assert.match(
    await usageError([...base, '--type', 'confidential', '--grant-types', 'client_credentials', '--auth-method', 'client_secret_basik']),
    /did you mean client_secret_basic\?/,
  );
  assert.match(await usageError(['keys', 'rotate', '--alg', 'ES265']), /^--alg must be one of ES256, RS256 \(got "ES265"\) \(did you mean ES256\?\)$/);
  assert.match(
    unknownCommand(['clients', 'shwo']),
    /^unknown command: clients shwo \(did you mean show\?\); clients takes one of: create, list, show, update, delete, disable\n/,
  );
  assert.match(unknownCommand(['client', 'list']), /\(did you mean clients list\?\)/);
});

test('--redirect-uri is optional in the usage line (only authorization_code needs it), and a service client is created without it', async () => {
  const found = (await import('../../src/cli/commands/clients.js')).clientsCreateCommand.usage;
  assert.match(found, /\[--redirect-uri URI\.\.\.\] \(required with authorization_code\)/);
  assert.doesNotMatch(found.replace(/\[[^\]]*\]/g, ''), /--redirect-uri/);
  const created = await run(...SERVICE);
  assert.deepEqual(created.redirect_uris, []);
  assert.equal(created.try_it, undefined, 'nothing to try in a browser for a machine client');
});

test('clients create prints a ready authorize URL with a fresh PKCE verifier: opening it and redeeming the code needs nothing copied by hand but the code', async () => {
  const user = await createUser(t.core.db, t.core.clock, { password: PASSWORD });
  const created = await run(
    'clients',
    'create',
    '--name',
    'Try',
    '--type',
    'public',
    '--grant-types',
    'authorization_code,refresh_token',
    '--scope',
    'openid profile offline_access',
    '--redirect-uri',
    'http://127.0.0.1:8080/callback',
  );
  const tryIt = created.try_it as { authorize_url: string; code_verifier: string; state: string; token_request: string };
  const url = new URL(tryIt.authorize_url);
  assert.equal(url.origin + url.pathname, `${t.url}/authorize`);
  assert.equal(url.searchParams.get('client_id'), created.client_id);
  assert.equal(url.searchParams.get('code_challenge_method'), 'S256');
  assert.equal(url.searchParams.get('state'), tryIt.state);
  assert.match(
    tryIt.token_request,
    new RegExp(`^curl -s ${t.url}/token -d client_id=${String(created.client_id)} -d grant_type=authorization_code -d code=CODE `),
  );
  const second = (
    await run(
      'clients',
      'create',
      '--name',
      'Try',
      '--type',
      'public',
      '--grant-types',
      'authorization_code',
      '--scope',
      'openid',
      '--redirect-uri',
      'http://127.0.0.1:8080/callback',
    )
  ).try_it as { code_verifier: string };
  assert.notEqual(second.code_verifier, tryIt.code_verifier, 'a fresh verifier every time');

  const back = await browserlessLogin(url, { username: user.username, password: PASSWORD });
  assert.equal(back.origin + back.pathname, 'http://127.0.0.1:8080/callback');
  assert.equal(back.searchParams.get('state'), tryIt.state);
  const res = await postForm(`${t.url}/token`, {
    grant_type: 'authorization_code',
    code: back.searchParams.get('code')!,
    redirect_uri: 'http://127.0.0.1:8080/callback',
    client_id: String(created.client_id),
    code_verifier: tryIt.code_verifier,
  });
  assert.equal(res.status, 200, res.text);
  const tokens = res.body;
  assert.ok(tokens.access_token && tokens.id_token && tokens.refresh_token);
});

test('a confidential login client gets a token request that authenticates with its new secret', async () => {
  const created = await run(
    'clients',
    'create',
    '--name',
    'Web',
    '--type',
    'confidential',
    '--grant-types',
    'authorization_code',
    '--scope',
    'openid',
    '--redirect-uri',
    'https://app.example/cb',
  );
  const tryIt = created.try_it as { token_request: string };
  assert.ok(tryIt.token_request.includes(`-u '${String(created.client_id)}:${String(created.client_secret)}'`));
});
