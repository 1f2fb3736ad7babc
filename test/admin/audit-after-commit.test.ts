// The audit log's JSON line is written only once the change it reports has committed (docs/audit-log.md):
// a change that fails after its audit insert leaves neither a row nor a line.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { manualClock } from '../../src/clock.js';
import { adminFixture, createBody, type AdminFixture } from './fixture.js';
import { rotateSigningKeys, signingKeyServiceDeps } from '../../src/admin-services/index.js';
import { createStore } from '../../src/storage/store.js';

const clock = manualClock(Date.now());
let f: AdminFixture;
before(async () => {
  f = await adminFixture({ clock });
});
after(() => f.t.close());

const auditLines = () =>
  f
    .logText()
    .split('\n')
    .filter((line) => line.includes('"audit"'));

test('a change that fails after its audit insert writes no audit log line and no audit row', async () => {
  const core = f.t.core;
  const deps = signingKeyServiceDeps(core, core.audit);
  const written: string[] = [];
  // The ES256 key and its event are written, then the RS256 rotation fails: the transaction rolls back.
  const failing = {
    ...deps,
    keys: {
      ...deps.keys,
      rotate: async (alg: 'ES256' | 'RS256', within?: Parameters<typeof deps.keys.rotate>[1]) => {
        if (alg === 'RS256') throw new Error('the second key could not be stored');
        const key = await deps.keys.rotate(alg, within);
        written.push(key.kid);
        return key;
      },
    },
  };
  const linesBefore = auditLines().length;
  await assert.rejects(rotateSigningKeys(failing, ['ES256', 'RS256'], { actor: { kind: 'system' } }), /could not be stored/);
  const [kid] = written;
  assert.ok(kid, 'the first key and its event were written inside the transaction');
  assert.equal(auditLines().length, linesBefore, 'no audit line for a rolled-back change');
  assert.ok(!f.logText().includes(kid!));
  assert.equal((await core.db.selectFrom('audit_events').select('id').where('resource_id', '=', kid!).execute()).length, 0);
  assert.equal((await core.db.selectFrom('signing_keys').select('kid').where('kid', '=', kid!).execute()).length, 0);
});

test('a committed change writes its audit log line after the commit, once', async () => {
  const res = await f.api('/admin/v1/signing-keys/rotations', createBody({ alg: 'ES256' }, crypto.randomUUID()));
  assert.equal(res.status, 201);
  const { rotated } = (await res.json()) as { rotated: { kid: string }[] };
  const lines = auditLines().filter((line) => line.includes(rotated[0]!.kid));
  assert.equal(lines.length, 1);
  assert.equal(JSON.parse(lines[0]!).audit.type, 'signing_key.rotated');
});

test('an audit event in a transaction not opened with store.transaction is refused (rolled back), never logged before a commit', async () => {
  const core = f.t.core;
  const linesBefore = auditLines().length;
  await assert.rejects(
    core.db.transaction().execute(async (trx) => {
      await core.audit.emit({ type: 'signing_key.rotated', actor: { kind: 'system' }, resourceId: 'never-committed' }, { tx: createStore(trx, clock) });
    }),
    /store\.transaction/,
  );
  assert.equal(auditLines().length, linesBefore);
  assert.equal((await core.db.selectFrom('audit_events').select('id').where('resource_id', '=', 'never-committed').execute()).length, 0);
});

test('afterCommit outside a transaction runs at once', () => {
  let ran = false;
  f.t.core.store.afterCommit(() => {
    ran = true;
  });
  assert.ok(ran);
});
