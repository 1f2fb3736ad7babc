// Client metadata rules shared by the CLI and /register (RFC 7591 2, RFC 6749 3.1.2, RFC 8252 7).
import { test } from 'node:test';
import { generateKeyPairSync } from 'node:crypto';
import assert from 'node:assert/strict';
import { exportJWK, generateKeyPair, generateSecret } from 'jose';
import { ClientMetadataError, validateClientMetadata as validateWith, type ClientMetadataInput } from '../../../src/oauth/clients/metadata.js';
import { builtInCatalogue } from '../../helpers/resource-catalogue.js';
import { redirectUriProblem } from '../../../src/oauth/clients/redirect-uris.js';

const catalogue = builtInCatalogue();
const validateClientMetadata = (input: ClientMetadataInput) => validateWith(input, { catalogue, operator: true });

const web = { grant_types: ['authorization_code'], scope: 'openid' };

test('redirect URIs must be absolute, without fragment, https — http only on loopback hosts', () => {
  for (const ok of ['https://app.example/cb', 'https://app.example/cb?x=1', 'http://localhost:3000/cb', 'http://127.0.0.1/cb', 'http://[::1]:8080/cb']) {
    assert.equal(redirectUriProblem(ok), undefined, ok);
  }
  for (const bad of [
    'http://app.example/cb',
    'https://app.example/cb#x',
    'https://app.example/cb#',
    '/cb',
    'cb',
    'http://localhost.evil.example/cb',
    'https://user:pw@app.example/cb',
    'https://*.example/cb',
  ]) {
    assert.notEqual(redirectUriProblem(bad), undefined, bad);
  }
});

test('native apps may register private-use reverse-domain schemes; dangerous schemes are refused', () => {
  assert.equal(redirectUriProblem('com.example.app:/oauth2redirect'), undefined);
  for (const bad of ['javascript:alert(1)', 'data:text/html,x', 'file:///etc/passwd', 'myapp:/cb', 'vbscript:x']) {
    assert.notEqual(redirectUriProblem(bad), undefined, bad);
  }
});

test('an invalid redirect URI is the RFC 7591 invalid_redirect_uri error', async () => {
  await assert.rejects(
    validateClientMetadata({ ...web, redirect_uris: ['http://app.example/cb'] }),
    (e: unknown) => e instanceof ClientMetadataError && e.error === 'invalid_redirect_uri',
  );
  await assert.rejects(
    validateClientMetadata({ ...web, redirect_uris: [] }),
    (e: unknown) => e instanceof ClientMetadataError && e.error === 'invalid_redirect_uri',
  );
});

test('grant types must be supported ones; implicit and password are not', async () => {
  for (const grant of ['implicit', 'password', 'urn:ietf:params:oauth:grant-type:jwt-bearer']) {
    await assert.rejects(validateClientMetadata({ grant_types: [grant] }), ClientMetadataError, grant);
  }
  // RFC 8628 (docs/device-flow.md): supported, and needs no redirect URI.
  const device = await validateClientMetadata({
    grant_types: ['urn:ietf:params:oauth:grant-type:device_code'],
    token_endpoint_auth_method: 'none',
    scope: 'openid',
  });
  assert.deepEqual(device.grantTypes, ['urn:ietf:params:oauth:grant-type:device_code']);
  await assert.rejects(validateClientMetadata({ ...web, redirect_uris: ['https://a.example/cb'], response_types: ['token'] }), ClientMetadataError);
});

test('public clients cannot use client_credentials and use auth method none', async () => {
  await assert.rejects(
    validateClientMetadata({ grant_types: ['client_credentials'], token_endpoint_auth_method: 'none' }),
    /public clients cannot use client_credentials/,
  );
  const spa = await validateClientMetadata({ ...web, redirect_uris: ['https://a.example/cb'], token_endpoint_auth_method: 'none' });
  assert.equal(spa.type, 'public');
  const backend = await validateClientMetadata({ grant_types: ['client_credentials'] });
  assert.equal(backend.type, 'confidential');
  assert.equal(backend.authMethod, 'client_secret_basic');
});

test('private_key_jwt needs public asymmetric keys (no symmetric, no private parts, RSA >= 2048 bits), jwks xor jwks_uri', async () => {
  const cc = { grant_types: ['client_credentials'], token_endpoint_auth_method: 'private_key_jwt' };
  const { publicKey, privateKey } = await generateKeyPair('ES256', { extractable: true });
  const weak = generateKeyPairSync('rsa', { modulusLength: 1024 }).publicKey.export({ format: 'jwk' });
  const hmac = await exportJWK(await generateSecret('HS256', { extractable: true }));
  assert.equal((await validateClientMetadata({ ...cc, jwks: { keys: [await exportJWK(publicKey)] } })).authMethod, 'private_key_jwt');
  await assert.rejects(validateClientMetadata({ ...cc, jwks: { keys: [await exportJWK(privateKey)] } }), /public keys only/);
  await assert.rejects(validateClientMetadata({ ...cc, jwks: { keys: [hmac] } }), ClientMetadataError);
  await assert.rejects(validateClientMetadata({ ...cc, jwks: { keys: [weak] } }), /2048/);
  await assert.rejects(validateClientMetadata({ ...cc, jwks: { keys: [] } }), ClientMetadataError);
  await assert.rejects(validateClientMetadata(cc), /jwks/);
  await assert.rejects(
    validateClientMetadata({ ...cc, jwks: { keys: [await exportJWK(publicKey)] }, jwks_uri: 'https://a.example/jwks' }),
    /mutually exclusive/,
  );
  await assert.rejects(validateClientMetadata({ ...cc, jwks_uri: 'http://a.example/jwks' }), /https/);
});

test('scopes must come from the catalogue; id_token alg must be RS256 or ES256', async () => {
  await assert.rejects(validateClientMetadata({ grant_types: ['client_credentials'], scope: 'orders:read root' }), /root/);
  await assert.rejects(validateClientMetadata({ grant_types: ['client_credentials'], scope: ['orders:read'] }), ClientMetadataError);
  await assert.rejects(validateClientMetadata({ grant_types: ['client_credentials'], id_token_signed_response_alg: 'HS256' }), ClientMetadataError);
  await assert.rejects(validateClientMetadata({ grant_types: ['client_credentials'], id_token_signed_response_alg: 'none' }), ClientMetadataError);
});

test('malformed metadata types are rejected, never crash', async () => {
  for (const input of [{ redirect_uris: 'https://a.example/cb' }, { grant_types: 'client_credentials' }, { client_name: 42 }, { redirect_uris: [1] }]) {
    await assert.rejects(validateClientMetadata(input), ClientMetadataError, JSON.stringify(input));
  }
});
