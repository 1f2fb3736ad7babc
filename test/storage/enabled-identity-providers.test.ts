// The enabled identity providers in memory (docs/federation.md, "Cost"): once read, the list is answered
// without a query (the /account sign-in form and the login pages ask on every view); every change to the
// providers — a new one, one disabled, one deleted, by this process or by any other connection — is announced by
// the database and the next read sees it. Real databases (the pass's), real LISTEN/NOTIFY; the real repository,
// wrapped only to count how often it is read.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { setTimeout as delay } from 'node:timers/promises';
import { sql } from 'kysely';
import type { Database } from '../../src/storage/driver/database.js';
import { enabledIdentityProviders, type EnabledIdentityProviders } from '../../src/storage/repositories/enabled-identity-providers.js';
import { identityProvidersRepository, type IdentityProvidersRepository } from '../../src/storage/repositories/identity-providers-repository.js';
import { createTestDatabase } from '../helpers/database.js';

let database: Database;
let repository: IdentityProvidersRepository;
let cache: EnabledIdentityProviders;
let reads = 0;

before(async () => {
  database = await createTestDatabase();
  repository = identityProvidersRepository(database.db);
  cache = enabledIdentityProviders(
    {
      listEnabled: (limit) => {
        reads += 1;
        return repository.listEnabled(limit);
      },
    },
    database.notifications,
  );
});
after(async () => {
  cache.close();
  await database.close();
});

async function addProvider(slug: string) {
  const created = await repository.create({
    slug,
    name: slug,
    kind: 'oidc',
    preset: null,
    issuer: `https://${slug}.example`,
    authorizationEndpoint: `https://${slug}.example/authorize`,
    tokenEndpoint: `https://${slug}.example/token`,
    userinfoEndpoint: null,
    emailsEndpoint: null,
    jwksUri: `https://${slug}.example/jwks`,
    authorizationResponseIss: false,
    clientId: 'gatehouse',
    clientSecretEnv: 'UPSTREAM_SECRET',
    tokenEndpointAuthMethod: 'client_secret_basic',
    scopes: ['openid'],
    domains: [],
    tenants: [],
    claims: {},
    provision: false,
    link: 'never',
  });
  assert.ok(created);
  return created;
}

/** Polls until a read no longer reaches the database (the listener comes up asynchronously after the open). */
async function answeredFromMemory(): Promise<void> {
  const read = async () => {
    const before = reads;
    await cache.listEnabled(10);
    return reads === before;
  };
  for (let tries = 0; tries < 500 && !(await read()); tries += 1) await delay(20);
}

const slugs = async () => (await cache.listEnabled(10)).map((p) => p.slug);

test('enabled identity providers are read once, then answered from memory; every change (new, disabled, deleted, written outside the repository too) is seen by the next read', async () => {
  const first = `one-${randomUUID().slice(0, 8)}`;
  await addProvider(first);
  await answeredFromMemory();
  const before = reads;
  assert.ok((await slugs()).includes(first));
  assert.ok((await slugs()).includes(first));
  assert.equal(reads, before, 'two views, no query');

  // This process's own write: announced before its commit returned, so the very next read sees it.
  const second = await addProvider(`two-${randomUUID().slice(0, 8)}`);
  assert.ok((await slugs()).includes(second.slug), 'a new provider at the next read');
  await repository.updateIfVersion(second.id, { ...second, enabled: false }, second.version, new Date());
  assert.equal((await slugs()).includes(second.slug), false, 'a disabled one is gone at the next read');

  // A write that is not the repository's (raw SQL, as an operator's psql session): the trigger announces it too.
  await sql`update identity_providers set enabled = false where slug = ${first}`.execute(database.db);
  assert.equal((await slugs()).includes(first), false, 'disabled outside the repository, gone at the next read');
  await repository.deleteIfVersion(second.id, undefined);
  assert.equal((await slugs()).includes(second.slug), false);
});

test('enabled identity providers without notifications (none configured): every read queries the database', async () => {
  let counted = 0;
  const blind = enabledIdentityProviders(
    {
      listEnabled: (limit) => {
        counted += 1;
        return repository.listEnabled(limit);
      },
    },
    undefined,
  );
  await blind.listEnabled(10);
  await blind.listEnabled(10);
  assert.equal(counted, 2);
  blind.close();
});
