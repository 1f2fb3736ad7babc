// A jwks_uri is fetched by the server, so registration (POST /register and the CLI) refuses any that is not
// https or whose host is, or resolves to, a loopback, private, link-local, metadata, CGNAT or other
// non-public address. No test here reaches the network: names resolve through an injected resolver.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { executeCommand } from '../../src/cli/execute.js';
import { UsageError } from '../../src/cli/command.js';
import { STRICT_OUTBOUND, type ResolvedAddress } from '../../src/http/outbound/outbound-policy.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { NO_LIMITS } from '../helpers/env.js';

const DNS: Record<string, ResolvedAddress[]> = {
  'keys.public.test': [{ address: '93.184.215.14', family: 4 }],
  'keys.private.test': [{ address: '10.0.0.7', family: 4 }],
  'keys.metadata.test': [{ address: '::ffff:169.254.169.254', family: 6 }],
  'keys.mixed.test': [
    { address: '93.184.215.14', family: 4 },
    { address: '127.0.0.1', family: 4 },
  ],
};
let t: TestApp;
before(async () => {
  const resolve = async (host: string) => {
    const found = DNS[host];
    if (!found) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
    return found;
  };
  t = await startTestApp({ env: NO_LIMITS, outbound: { ...STRICT_OUTBOUND, resolve } });
});
after(() => t.close());

const token = async () =>
  String(((await executeCommand(['registration-token', 'create', '--uses', '5'], t.core)) as { initial_access_token: string }).initial_access_token);
const metadata = (jwksUri: string) => ({
  grant_types: ['authorization_code'],
  redirect_uris: ['https://app.example/cb'],
  scope: 'openid',
  token_endpoint_auth_method: 'private_key_jwt',
  jwks_uri: jwksUri,
});
async function register(bearer: string, body: unknown) {
  const res = await fetch(`${t.url}/register`, {
    method: 'POST',
    headers: { authorization: `Bearer ${bearer}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

const REFUSED = [
  'https://127.0.0.1/jwks',
  'https://127.1/jwks',
  'https://0x7f000001/jwks',
  'https://2130706433/jwks',
  'https://localhost/',
  'https://keys.localhost/',
  'https://[::1]/',
  'https://[::ffff:127.0.0.1]/',
  'https://169.254.169.254/latest/meta-data/',
  'https://[fd00:ec2::254]/',
  'https://10.1.2.3/jwks',
  'https://172.16.0.1/jwks',
  'https://192.168.0.10/jwks',
  'https://100.64.0.1/jwks',
  'https://[fe80::1]/jwks',
  'https://[fc00::1]/jwks',
  'https://0.0.0.0/jwks',
  'http://keys.public.test/jwks',
  'ftp://keys.public.test/jwks',
  'https://user:pass@keys.public.test/jwks',
  'https://keys.private.test/jwks',
  'https://keys.metadata.test/jwks',
  'https://keys.mixed.test/jwks',
  'https://keys.unknown.test/jwks',
];

test('registration refuses a jwks_uri that is not https or points at a non-public address (invalid_client_metadata)', async () => {
  const bearer = await token();
  for (const uri of REFUSED) {
    const res = await register(bearer, metadata(uri));
    assert.equal(res.status, 400, uri);
    assert.equal(res.body.error, 'invalid_client_metadata', uri);
  }
  const ok = await register(bearer, metadata('https://keys.public.test/jwks'));
  assert.equal(ok.status, 201, 'a host resolving only to public addresses is accepted');
  assert.equal(ok.body.jwks_uri, 'https://keys.public.test/jwks');
});

test("registration refuses, through an RFC 7592 update too, a jwks_uri pointing at the server's own network", async () => {
  const created = (await register(await token(), metadata('https://keys.public.test/jwks'))).body as Record<string, string>;
  const res = await fetch(created.registration_client_uri!, {
    method: 'PUT',
    headers: { authorization: `Bearer ${created.registration_access_token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ ...metadata('https://169.254.169.254/latest/'), client_id: created.client_id }),
  });
  assert.equal(res.status, 400);
  assert.equal(((await res.json()) as { error: string }).error, 'invalid_client_metadata');
});

test('clients create (CLI) refuses the same jwks_uri values', async () => {
  const base = [
    'clients',
    'create',
    '--name',
    'K',
    '--type',
    'confidential',
    '--grant-types',
    'client_credentials',
    '--scope',
    'orders:read',
    '--auth-method',
    'private_key_jwt',
  ];
  for (const uri of [
    'https://127.0.0.1/jwks',
    'https://localhost/',
    'https://[::1]/',
    'https://169.254.169.254/',
    'http://keys.public.test/jwks',
    'https://keys.private.test/jwks',
  ]) {
    await assert.rejects(executeCommand([...base, '--jwks-uri', uri], t.core), UsageError, uri);
  }
  const created = (await executeCommand([...base, '--jwks-uri', 'https://keys.public.test/jwks'], t.core)) as Record<string, unknown>;
  assert.equal(created.jwks_uri, 'https://keys.public.test/jwks');
});
