// The composition root (src/services.ts) and the faces' declared dependencies: a face mounted without a
// plugin it relies on fails at boot, naming what is missing — in particular without the job worker, which
// once made the authorization server silently stop purging its expired records.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import Fastify, { type FastifyInstance } from 'fastify';
import formbody from '@fastify/formbody';
import { systemClock } from '../src/clock.js';
import { createServices, type Services } from '../src/services.js';
import { createErrorEdge } from '../src/http/error-edge.js';
import { jobWorker } from '../src/jobs/plugin.js';
import { authorizationServer } from '../src/oauth/index.js';
import { interactionPages } from '../src/interaction/index.js';
import { resourceApi } from '../src/resource-api.js';
import type { Database } from '../src/storage/driver/database.js';
import { createTestDatabase } from './helpers/database.js';
import { testConfig } from './helpers/app.js';

let database: Database;
let services: Services;

before(async () => {
  database = await createTestDatabase();
  services = createServices({ config: testConfig(3998), clock: systemClock, database, log: { info() {}, warn() {}, error() {} } });
});
after(() => database.close());

type Face = typeof authorizationServer | typeof interactionPages | typeof resourceApi;
const FACES: [string, Face][] = [
  ['gatehouse-oauth', authorizationServer],
  ['gatehouse-interaction', interactionPages],
  ['gatehouse-api', resourceApi],
];

/** A bare app with only the named app-wide plugins, then one face. */
async function boot(face: Face, present: { edge?: boolean; forms?: boolean; jobs?: boolean }): Promise<FastifyInstance> {
  const app = Fastify({ logger: false });
  app.decorate('issuer', services.config.ISSUER);
  app.decorate('brand', services.brand);
  if (present.edge) await app.register(createErrorEdge().plugin);
  if (present.forms) await app.register(formbody);
  if (present.jobs) await app.register(jobWorker, { jobs: services.jobs });
  await app.register(face as typeof resourceApi, { services });
  return app;
}

async function bootFailure(face: Face, present: Parameters<typeof boot>[1]): Promise<Error & { code?: string }> {
  let app: FastifyInstance | undefined;
  try {
    app = await boot(face, present);
    await app.ready();
  } catch (error) {
    return error as Error & { code?: string };
  } finally {
    await app?.close();
  }
  assert.fail('the app booted although a dependency of the face is missing');
}

for (const [name, face] of FACES) {
  test(`a face without the job worker fails at boot: ${name}`, async () => {
    const error = await bootFailure(face, { edge: true, forms: true });
    assert.equal(error.code, 'FST_ERR_PLUGIN_DEPENDENCY_NOT_REGISTERED');
    assert.match(error.message, /gatehouse-jobs/);
    assert.match(error.message, new RegExp(name));
  });

  test(`a face without the error edge fails at boot: ${name}`, async () => {
    const error = await bootFailure(face, { forms: true, jobs: true });
    assert.equal(error.code, 'FST_ERR_PLUGIN_DEPENDENCY_NOT_REGISTERED');
    assert.match(error.message, /gatehouse-error-edge/);
  });

  test(`a face with every dependency it declares boots: ${name}`, async () => {
    const app = await boot(face, { edge: true, forms: true, jobs: true });
    try {
      await app.ready();
    } finally {
      await app.close();
    }
  });
}

test('/authorize belongs to the authorization server: served without the interaction face, as an HTML page', async () => {
  const app = await boot(authorizationServer, { edge: true, forms: true, jobs: true });
  try {
    const res = await app.inject({ method: 'GET', url: '/authorize?client_id=nobody' });
    assert.equal(res.statusCode, 400);
    assert.match(String(res.headers['content-type']), /^text\/html/);
    assert.equal(res.headers['x-frame-options'], 'DENY');
  } finally {
    await app.close();
  }
});

test('a browser-form face without the form parser fails at boot', async () => {
  for (const face of [authorizationServer, interactionPages]) {
    const error = await bootFailure(face, { edge: true, jobs: true });
    assert.equal(error.code, 'FST_ERR_PLUGIN_DEPENDENCY_NOT_REGISTERED');
    assert.match(error.message, /@fastify\/formbody/);
  }
});
