// Automatic key rotation (KEY_ROTATION_INTERVAL, docs/key-rotation.md): off by default; when set, each
// algorithm is rotated once its newest key is that old, on the staged schedule of `keys rotate`, audited as
// the system, and once for the whole deployment however many instances check at the same moment. Time moves
// by the injected clock; nothing sleeps.
import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { manualClock } from '../../src/clock.js';
import { ConfigError, parseConfig } from '../../src/config.js';
import { KEY_ROTATION_CHECK_MS } from '../../src/admin-services/scheduled-key-rotation.js';
import { createTestDatabase } from '../helpers/database.js';
import { startTestApp, type TestApp } from '../helpers/app.js';

const DAY = 86_400_000;
const started: TestApp[] = [];
after(async () => {
  for (const t of started.reverse()) await t.close();
});

async function app(env: Record<string, string>, clock: ReturnType<typeof manualClock>, database?: TestApp['database']): Promise<TestApp> {
  const t = await startTestApp({ clock, env, ...(database ? { database } : {}) });
  started.push(t);
  return t;
}

const keyRows = (t: TestApp) => t.core.db.selectFrom('signing_keys').selectAll().orderBy('created_at').execute();
const rotationEvents = (t: TestApp) => t.core.db.selectFrom('audit_events').selectAll().where('type', '=', 'signing_key.rotated').execute();

describe('KEY_ROTATION_INTERVAL', () => {
  test('off by default: no key is rotated however much time passes', async () => {
    const clock = manualClock(Date.now());
    const t = await app({}, clock);
    const before = await keyRows(t);
    clock.advance(400 * DAY);
    await t.app.jobs.runDue();
    assert.equal((await keyRows(t)).length, before.length);
  });

  test('rotates every algorithm once its newest key is one interval old, on the staged schedule, audited as the system', async () => {
    const clock = manualClock(Date.now());
    const t = await app({ KEY_ROTATION_INTERVAL: '90d' }, clock);
    const first = await keyRows(t);
    clock.advance(89 * DAY);
    await t.app.jobs.runDue();
    assert.equal((await keyRows(t)).length, first.length, 'not yet due after 89 days');

    clock.advance(DAY + KEY_ROTATION_CHECK_MS);
    await t.app.jobs.runDue();
    const rows = await keyRows(t);
    const added = rows.filter((r) => !first.some((f) => f.kid === r.kid));
    assert.deepEqual(added.map((r) => r.alg).sort(), ['ES256', 'RS256'], 'one new key per algorithm');
    const margin = (t.config.JWKS_CACHE_TTL + t.config.KEY_REFRESH_INTERVAL + t.config.CLOCK_SKEW) * 1000;
    for (const key of added) {
      assert.equal(key.activates_at.getTime() - key.created_at.getTime(), margin, 'published now, signs after the margin of `keys rotate`');
      const replaced = first.find((f) => f.alg === key.alg)!;
      const now = rows.find((r) => r.kid === replaced.kid)!;
      assert.equal(now.retires_at?.getTime(), key.activates_at.getTime(), 'the old key retires when the new one starts');
    }
    const events = await rotationEvents(t);
    assert.deepEqual(events.map((e) => [e.resource_id, e.actor_kind]).sort(), added.map((k) => [k.kid, 'system']).sort());

    clock.advance(KEY_ROTATION_CHECK_MS);
    await t.app.jobs.runDue();
    assert.equal((await keyRows(t)).length, rows.length, 'the next check finds nothing due');
  });

  test('two instances sharing one database that check at the same moment rotate once', async () => {
    const clock = manualClock(Date.now());
    const database = await createTestDatabase();
    const a = await app({ KEY_ROTATION_INTERVAL: '30d' }, clock, database);
    const b = await app({ KEY_ROTATION_INTERVAL: '30d' }, clock, database);
    started.push({ close: () => database.close() } as TestApp);
    const first = await keyRows(a);
    clock.advance(30 * DAY + KEY_ROTATION_CHECK_MS);
    await Promise.all([a.app.jobs.runDue(), b.app.jobs.runDue(), a.app.jobs.runDue(), b.app.jobs.runDue()]);
    const added = (await keyRows(a)).filter((r) => !first.some((f) => f.kid === r.kid));
    assert.deepEqual(added.map((r) => r.alg).sort(), ['ES256', 'RS256'], 'one rotation, not one per instance');
    assert.equal((await rotationEvents(a)).length, 2);
  });
});

describe('KEY_ROTATION_INTERVAL is validated at start-up', () => {
  const parse = (env: Record<string, string>) => parseConfig({ KEY_ENCRYPTION_KEY: 'x'.repeat(43), ...env });
  test('units s, m, h, d, w, or off', () => {
    assert.equal(parse({ KEY_ROTATION_INTERVAL: '90d' }).KEY_ROTATION_INTERVAL, 90 * 86_400);
    assert.equal(parse({ KEY_ROTATION_INTERVAL: '2w' }).KEY_ROTATION_INTERVAL, 14 * 86_400);
    assert.equal(parse({ KEY_ROTATION_INTERVAL: '12h' }).KEY_ROTATION_INTERVAL, 12 * 3600);
    assert.equal(parse({ KEY_ROTATION_INTERVAL: 'off' }).KEY_ROTATION_INTERVAL, 0);
    assert.equal(parse({}).KEY_ROTATION_INTERVAL, 0, 'off by default');
  });
  test('a value without a unit, with an unknown unit, or under an hour is refused with a message naming the variable', () => {
    for (const value of ['90', '90 days', '3x', '-1d', '30m']) {
      assert.throws(
        () => parse({ KEY_ROTATION_INTERVAL: value }),
        (e: unknown) => e instanceof ConfigError && /KEY_ROTATION_INTERVAL must be "off" or an integer followed by s, m, h, d or w/.test(e.message),
        value,
      );
    }
  });
  test('an interval not longer than the time a rotated key waits before it signs is refused', () => {
    assert.throws(
      () => parse({ KEY_ROTATION_INTERVAL: '1d', JWKS_CACHE_TTL: '86400' }),
      /KEY_ROTATION_INTERVAL \(86400 s\) must be longer than JWKS_CACHE_TTL \+ KEY_REFRESH_INTERVAL \+ CLOCK_SKEW \(86460 s\)/,
    );
  });
});
