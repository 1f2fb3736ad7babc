// The per-app registry snapshot has the freshness of client registrations (CLIENT_CACHE_TTL): a change
// made elsewhere (CLI, another instance) shows within the TTL, one made here at once; misses share a read.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { manualClock } from '../../../src/clock.js';
import { resourceRegistry } from '../../../src/oauth/resources/registry.js';
import type { ResourceServer } from '../../../src/storage/repositories/resource-servers-repository.js';

const server = (identifier: string, scope: string): ResourceServer => ({
  identifier,
  name: identifier,
  accessTokenTtl: null,
  offlineAccess: true,
  operatorOnly: false,
  clientId: null,
  tokenExchangeClients: [],
  createdAt: new Date(0),
  version: 1,
  updatedAt: new Date(0),
  scopes: [{ name: scope, description: scope, claims: {} }],
});

function countingRepository(servers: ResourceServer[]) {
  let reads = 0;
  return {
    get reads() {
      return reads;
    },
    servers,
    list: async () => {
      reads++;
      return [...servers];
    },
  };
}

test('a resource server registered elsewhere is seen within CLIENT_CACHE_TTL, and at once after forget()', async () => {
  const clock = manualClock(0);
  const repository = countingRepository([server('https://a.example', 'a:read')]);
  const registry = resourceRegistry(repository, clock, 5);
  assert.equal((await registry.catalogue()).ownerOf('a:read')?.identifier, 'https://a.example');
  repository.servers.push(server('https://b.example', 'b:read'));
  clock.advance(4_999);
  assert.equal((await registry.catalogue()).isKnown('b:read'), false, 'still the cached snapshot');
  clock.advance(1);
  assert.equal((await registry.catalogue()).isKnown('b:read'), true, 'fresh after CLIENT_CACHE_TTL');
  repository.servers.push(server('https://c.example', 'c:read'));
  registry.forget();
  assert.equal((await registry.catalogue()).isKnown('c:read'), true, 'a change made here shows at once');
});

test('concurrent misses of the registry share one read; a TTL of 0 reads every time', async () => {
  const repository = countingRepository([server('https://a.example', 'a:read')]);
  const registry = resourceRegistry(repository, manualClock(0), 5);
  await Promise.all(Array.from({ length: 20 }, () => registry.catalogue()));
  assert.equal(repository.reads, 1);
  const uncached = resourceRegistry(repository, manualClock(0), 0);
  await uncached.catalogue();
  await uncached.catalogue();
  assert.equal(repository.reads, 3);
});
