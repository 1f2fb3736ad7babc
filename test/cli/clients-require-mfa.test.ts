// `gatehouse clients create --require-mfa`: the client is stored as requiring a second factor (the flow
// itself is tested in test/interaction/mfa/step-up.test.ts).
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { executeCommand } from '../../src/cli/execute.js';
import { clientsRepository } from '../../src/storage/repositories/clients-repository.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { NO_LIMITS } from '../helpers/env.js';

let t: TestApp;
before(async () => {
  t = await startTestApp({ env: NO_LIMITS });
});
after(() => t.close());

test('--require-mfa marks the client as requiring a second factor; without it, none is required', async () => {
  const base = [
    'clients',
    'create',
    '--name',
    'Payroll',
    '--type',
    'public',
    '--grant-types',
    'authorization_code',
    '--scope',
    'openid',
    '--redirect-uri',
    'https://payroll.example/cb',
  ];
  const strict = (await executeCommand([...base, '--require-mfa'], t.core)) as Record<string, unknown>;
  const plain = (await executeCommand(base, t.core)) as Record<string, unknown>;
  assert.equal(strict.require_mfa, true);
  assert.equal(plain.require_mfa, undefined);
  const repository = clientsRepository(t.core.db, t.core.clock);
  assert.equal((await repository.find(String(strict.client_id)))?.requireMfa, true);
  assert.equal((await repository.find(String(plain.client_id)))?.requireMfa, false);
});
