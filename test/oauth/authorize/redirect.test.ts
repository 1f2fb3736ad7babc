// Building authorization responses (RFC 6749 4.1.2, 3.1.2; RFC 9207) and the form-action the pages allow.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { OAuthError } from '../../../src/http/errors.js';
import { errorRedirect, successRedirect, withQuery } from '../../../src/oauth/authorize/redirect.js';

const ISS = 'https://login.example';

test('the registered query is kept byte for byte and response parameters are appended', () => {
  assert.equal(withQuery('https://c.example/cb?a=b%20c&x=1', { code: 'K', state: 'S' }), 'https://c.example/cb?a=b%20c&x=1&code=K&state=S');
  assert.equal(withQuery('https://c.example/cb?', { code: 'K' }), 'https://c.example/cb?code=K');
  assert.equal(withQuery('com.example.app:/cb', { code: 'K' }), 'com.example.app:/cb?code=K');
});

test('success carries code, state and iss (RFC 9207) and nothing else', () => {
  const url = new URL(successRedirect({ redirectUri: 'https://c.example/cb', state: 's p&a=ce' }, 'the-code', ISS));
  assert.deepEqual([...url.searchParams.keys()], ['code', 'state', 'iss']);
  assert.equal(url.searchParams.get('state'), 's p&a=ce');
  assert.equal(url.searchParams.get('iss'), ISS);
});

test('an error redirect carries error, a safe error_description, state and iss, never code', () => {
  const url = new URL(errorRedirect({ redirectUri: 'https://c.example/cb', state: 'S' }, new OAuthError('invalid_request', 'bad "x"\r\n<b>'), ISS));
  assert.deepEqual([...url.searchParams.keys()], ['error', 'error_description', 'state', 'iss']);
  assert.match(url.searchParams.get('error_description')!, /^[\x20\x21\x23-\x5B\x5D-\x7E]*$/);
});
