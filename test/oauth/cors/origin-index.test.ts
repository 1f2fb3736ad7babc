// The in-memory index of CORS origins: fresh within CLIENT_CACHE_TTL across instances (a client made
// elsewhere counts, a disabled one stops counting), at once after a change through this instance, and one
// shared query for concurrent preflights rather than a read per request.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { manualClock } from '../../../src/clock.js';
import { clientsRepository } from '../../../src/storage/repositories/clients-repository.js';
import { originIndex } from '../../../src/oauth/cors/origin-index.js';
import { createTestDatabase } from '../../helpers/database.js';
import { startTestApp, type TestApp } from '../../helpers/app.js';
import { createClient } from '../../helpers/oauth-fixtures.js';
import { NO_LIMITS } from '../../helpers/env.js';

const clock = manualClock(Date.now());
let t: TestApp;
before(async () => {
  t = await startTestApp({ clock, env: { ...NO_LIMITS, CLIENT_CACHE_TTL: '5' } });
});
after(() => t.close());

const preflightOrigin = async (origin: string) =>
  (await t.app.inject({ method: 'OPTIONS', url: '/token', headers: { origin, 'access-control-request-method': 'POST' } })).headers[
    'access-control-allow-origin'
  ];

test('a client created elsewhere (CLI, another instance) gets CORS within CLIENT_CACHE_TTL, and a disabled one loses it within the same time', async () => {
  const origin = 'https://late.example';
  assert.equal(await preflightOrigin(origin), undefined);
  // Written straight to the database, as another process would: this instance learns of it only by re-reading.
  const { client } = await createClient(t.core.db, t.core.clock, { redirectUris: [`${origin}/cb`] });
  assert.equal(await preflightOrigin(origin), undefined);
  clock.advance(5_001);
  assert.equal(await preflightOrigin(origin), origin);
  await clientsRepository(t.core.db, t.core.clock).disable(client.id);
  clock.advance(5_001);
  assert.equal(await preflightOrigin(origin), undefined);
});

test('a change through this instance (the client cache forgetting a client) re-reads the origins at once', async () => {
  const origin = 'https://registered-here.example';
  assert.equal(await preflightOrigin(origin), undefined);
  const { client } = await createClient(t.core.db, t.core.clock, { redirectUris: [`${origin}/cb`] });
  t.core.clients.forget(client.id);
  assert.equal(await preflightOrigin(origin), origin);
});

test('concurrent preflights share one read of the clients, and later ones within the TTL read nothing', async () => {
  const database = await createTestDatabase();
  try {
    const repository = clientsRepository(database.db, clock);
    await createClient(database.db, clock, { redirectUris: ['https://one.example/cb'] });
    let reads = 0;
    const index = originIndex(
      {
        corsOrigins: (limit) => {
          reads++;
          return repository.corsOrigins(limit);
        },
      },
      clock,
      5,
    );
    const answers = await Promise.all(Array.from({ length: 50 }, (_, i) => index.allows(i % 2 ? 'https://one.example' : 'https://evil.example')));
    assert.deepEqual(new Set(answers), new Set([true, false]));
    for (let i = 0; i < 50; i++) await index.allows('https://evil.example');
    assert.equal(reads, 1);
  } finally {
    await database.close();
  }
});
