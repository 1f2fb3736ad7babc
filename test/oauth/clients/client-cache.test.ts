// The in-process client cache behind client authentication (CLIENT_CACHE_TTL).
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { manualClock } from '../../../src/clock.js';
import { cachedClients } from '../../../src/oauth/clients/client-cache.js';
import { clientsRepository, type ClientsRepository } from '../../../src/storage/repositories/clients-repository.js';
import type { Database } from '../../../src/storage/driver/database.js';
import { createTestDatabase } from '../../helpers/database.js';

let database: Database;
let repository: ClientsRepository;
const clock = manualClock(Date.parse('2026-05-01T00:00:00Z'));

before(async () => {
  database = await createTestDatabase();
  repository = clientsRepository(database.db, clock);
});
after(() => database.close());

/** Counts the reads that reach the repository. */
function counting() {
  let reads = 0;
  return {
    repo: {
      find: (id: string) => {
        reads += 1;
        return repository.find(id);
      },
    },
    reads: () => reads,
  };
}

const newClient = (id: string) =>
  repository.create({
    id,
    name: id,
    type: 'confidential',
    secretHash: 'h',
    authMethod: 'client_secret_basic',
    redirectUris: [],
    postLogoutRedirectUris: [],
    grantTypes: ['client_credentials'],
    scopes: ['orders:read'],
    jwks: null,
    jwksUri: null,
    registrationPolicy: null,
    idTokenSignedResponseAlg: 'RS256',
    skipConsent: false,
  });

test('a client read once is served from memory until CLIENT_CACHE_TTL passes, then read again', async () => {
  await newClient('cached-1');
  const { repo, reads } = counting();
  const cache = cachedClients(repo, clock, 5);
  assert.equal((await cache.find('cached-1'))?.id, 'cached-1');
  assert.equal((await cache.find('cached-1'))?.id, 'cached-1');
  assert.equal(reads(), 1);
  await repository.delete('cached-1');
  clock.advance(5001);
  assert.equal(await cache.find('cached-1'), undefined, 'a deleted client is gone after the TTL');
  assert.equal(reads(), 2);
});

test('unknown client ids are cached like known ones, so a cached client does not answer faster than an unknown id', async () => {
  const { repo, reads } = counting();
  const cache = cachedClients(repo, clock, 5);
  assert.equal(await cache.find('nobody'), undefined);
  assert.equal(await cache.find('nobody'), undefined);
  assert.equal(reads(), 1);
  await newClient('nobody');
  clock.advance(5001);
  assert.equal((await cache.find('nobody'))?.id, 'nobody', 'a later registration is seen after the TTL');
});

test('the cache is bounded: flooding it with random ids evicts the oldest entries only', async () => {
  const { repo, reads } = counting();
  const cache = cachedClients(repo, clock, 60);
  for (let i = 0; i < 10_050; i++) await cache.find(`random-${i}`);
  const before = reads();
  await cache.find('random-10049');
  assert.equal(reads(), before, 'recent entries stay');
  await cache.find('random-0');
  assert.equal(reads(), before + 1, 'the oldest entries were evicted');
});

test('concurrent misses for one client share a single read', async () => {
  await newClient('busy');
  const { repo, reads } = counting();
  const cache = cachedClients(repo, clock, 5);
  const found = await Promise.all(Array.from({ length: 20 }, () => cache.find('busy')));
  assert.ok(found.every((c) => c?.id === 'busy'));
  assert.equal(reads(), 1);
});

test('CLIENT_CACHE_TTL=0 reads the repository every time', async () => {
  await newClient('uncached');
  const { repo, reads } = counting();
  const cache = cachedClients(repo, clock, 0);
  await cache.find('uncached');
  await cache.find('uncached');
  assert.equal(reads(), 2);
});

test('forget() drops a remembered client: the next lookup reads the repository again', async () => {
  await newClient('changed-here');
  const { repo, reads } = counting();
  const cache = cachedClients(repo, clock, 60);
  await cache.find('changed-here');
  await cache.find('changed-here');
  assert.equal(reads(), 1);
  cache.forget('changed-here');
  await cache.find('changed-here');
  assert.equal(reads(), 2);
});

test('a read in flight when forget() runs does not put the old registration back', async () => {
  await newClient('deleted-mid-read');
  let releaseRead!: () => void;
  const gate = new Promise<void>((resolve) => (releaseRead = resolve));
  let reads = 0;
  // The first read gets its row, then is held until after the delete.
  const held = async (id: string) => {
    reads += 1;
    const row = await repository.find(id);
    await gate;
    return row;
  };
  const cache = cachedClients({ find: held }, clock, 60);
  const stale = cache.find('deleted-mid-read');
  cache.forget('deleted-mid-read');
  await repository.delete('deleted-mid-read');
  releaseRead();
  assert.equal((await stale)?.id, 'deleted-mid-read', 'the caller that started the read still gets its answer');
  assert.equal(await cache.find('deleted-mid-read'), undefined, 'but the next lookup reads again');
  assert.equal(reads, 2);
});
