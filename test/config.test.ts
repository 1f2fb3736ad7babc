import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ConfigError, describeSettings, parseConfig } from '../src/config.js';
import { configTable } from '../scripts/gen-config-docs.js';

test('defaults give a working development configuration', () => {
  const config = parseConfig({});
  assert.equal(config.PORT, 3000);
  assert.equal(config.ISSUER, 'http://localhost:3000');
  assert.equal(config.API_AUDIENCE, 'http://localhost:3000/v1');
  assert.equal(config.ACCESS_TOKEN_TTL, 600);
  assert.equal(config.AUTH_CODE_TTL, 60);
  assert.equal(config.RATE_LIMIT_ENABLED, true);
});

test('a bad value stops start-up with one line naming the variable and what is expected', () => {
  for (const [name, value] of [
    ['PORT', 'abc'],
    ['PORT', '70000'],
    ['ISSUER', 'not a url'],
    ['ISSUER', 'https://as.example/?x=1'],
    ['DATABASE_URL', 'mysql://x'],
    ['LOG_LEVEL', 'loud'],
    ['RATE_LIMIT_ENABLED', 'maybe'],
    ['KEY_ENCRYPTION_KEY', 'short'],
    ['CURRENCIES', 'eur'],
  ] as const) {
    assert.throws(
      () => parseConfig({ [name]: value }),
      (error: unknown) => {
        assert.ok(error instanceof ConfigError);
        assert.match(error.message, new RegExp(`^Invalid configuration: ${name} must be `));
        assert.doesNotMatch(error.message, /\n/);
        return true;
      },
    );
  }
});

test('production requires a key-encryption key and an https issuer', () => {
  assert.throws(() => parseConfig({ NODE_ENV: 'production', ISSUER: 'https://id.example' }), /KEY_ENCRYPTION_KEY is required/);
  const kek = Buffer.alloc(32, 7).toString('base64url');
  assert.throws(() => parseConfig({ NODE_ENV: 'production', KEY_ENCRYPTION_KEY: kek, ISSUER: 'http://id.example' }), /ISSUER must be an https URL/);
  assert.equal(parseConfig({ NODE_ENV: 'production', KEY_ENCRYPTION_KEY: kek, ISSUER: 'https://id.example' }).ISSUER, 'https://id.example');
});

test('the README configuration table matches the settings schema', () => {
  const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');
  assert.ok(readme.includes(configTable()), 'README.md configuration table is stale: run `npm run docs:config`');
  assert.ok(describeSettings().length > 20);
});

test('DATA_DIR is resolved once, at start-up, to an absolute directory (the default ./data too)', () => {
  assert.equal(parseConfig({}).DATA_DIR, join(process.cwd(), 'data'));
  assert.equal(parseConfig({ DATA_DIR: 'var/gh' }).DATA_DIR, join(process.cwd(), 'var', 'gh'));
  assert.equal(parseConfig({ DATA_DIR: '/srv/gatehouse/' }).DATA_DIR, '/srv/gatehouse');
});
