// Fault injection: kill -9 a server process in the middle of mixed load (keyed payments and refresh-token
// rotations), restart it on the same port and database, and check what clients were promised:
//   - every 201 a client saw has its payment row (no committed payment lost);
//   - every key whose answer was lost completes exactly once on retry (no key locked forever);
//   - no refresh family has two live tokens.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { createPostgresDatabaseUrl } from '../../helpers/database.js';
import { loginAndConsent } from '../../interaction/browserless.js';
import { authorizeUrl } from '../helpers/world.js';
import { systemClock } from '../../../src/clock.js';
import { attempt, openDatabase, seedClients, serverEnv, serviceToken, startServer, type Outcome } from './helpers.js';
import { Browser } from '../../helpers/browser.js';
import { pkcePair } from '../../helpers/pkce.js';
import { createUser, SIGN_IN } from '../../helpers/users.js';

const PAYMENT_WORKERS = 4;
const FAMILIES = 3;
const KILL_AFTER_PAYMENTS = 25;

test('kill -9 during keyed payments and refreshes: no committed payment lost, no key locked forever, no family with two live tokens', {
  timeout: 180_000,
}, async () => {
  const { url, drop } = await createPostgresDatabaseUrl();
  const env = serverEnv(url, { IDEMPOTENCY_LEASE: '1' });
  let server = await startServer(env);
  const database = await openDatabase(url);
  try {
    const { service, app } = await seedClients(database);
    const user = await createUser(database.db, systemClock, SIGN_IN);
    const token = await serviceToken(server.url, service);

    // Refresh families, each through the real browser flow against the server process.
    const current: string[] = [];
    for (let i = 0; i < FAMILIES; i++) {
      const p = pkcePair();
      const location = await loginAndConsent(new Browser(server.url), authorizeUrl(app.id, { scope: 'openid offline_access' }, p.challenge), user);
      const r = await attempt(`${server.url}/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({
          grant_type: 'authorization_code',
          code: location.searchParams.get('code')!,
          redirect_uri: 'https://client.example/cb',
          code_verifier: p.verifier,
          client_id: app.id,
        }),
      });
      assert.equal(r?.status, 200);
      current.push(String(r!.json!.refresh_token));
    }

    const base = server.url;
    const payBody = (key: string) => JSON.stringify({ amount: '7.00', currency: 'EUR', account: key });
    const pay = (key: string) =>
      attempt(`${base}/v1/payments`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', 'idempotency-key': key },
        body: payBody(key),
      });

    const confirmed = new Map<string, string>(); // key → payment id the client saw with 201
    const lost = new Set<string>(); // keys whose answer never came back
    let killed = false;
    let kill!: () => void;
    const killedNow = new Promise<void>((resolve) => (kill = resolve));

    async function payer(): Promise<void> {
      while (!killed) {
        const key = randomUUID();
        const r = await pay(key);
        if (r === undefined) lost.add(key);
        else if (r.status === 201) confirmed.set(key, String(r.json!.id));
        else assert.fail(`payment answered ${r.status} before the crash: ${JSON.stringify(r.json)}`);
        if (confirmed.size >= KILL_AFTER_PAYMENTS && !killed) kill();
      }
    }
    async function refresher(i: number): Promise<void> {
      while (!killed) {
        const r: Outcome | undefined = await attempt(`${base}/token`, {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: current[i]!, client_id: app.id }),
        });
        if (r === undefined) return;
        assert.equal(r.status, 200, JSON.stringify(r.json));
        current[i] = String(r.json!.refresh_token);
      }
    }

    const workers = [...Array.from({ length: PAYMENT_WORKERS }, payer), ...Array.from({ length: FAMILIES }, (_, i) => refresher(i))];
    // A worker that fails before the crash ends the test at once instead of waiting for a kill that never comes.
    await Promise.race([killedNow, Promise.all(workers).then(() => assert.fail('the load ended before the crash'))]);
    killed = true;
    server.child.kill('SIGKILL');
    await Promise.all(workers);
    await server.stop();

    server = await startServer(env, server.port);

    // 1. Every 201 the client saw has its row.
    for (const [key, id] of confirmed) {
      const row = await database.db.selectFrom('payments').select(['id', 'account']).where('id', '=', id).executeTakeFirst();
      assert.equal(row?.account, key, `payment ${id} (key ${key}) was confirmed but is missing`);
    }

    // 2. A key whose answer was lost completes on retry, exactly once (honouring 409 + Retry-After for the lease).
    for (const key of lost) {
      let r = await pay(key);
      for (let i = 0; i < 10 && r?.status === 409; i++) {
        const wait = Number(r.headers.get('retry-after') ?? '1');
        await new Promise((resolve) => setTimeout(resolve, Math.min(wait, 2) * 1000));
        r = await pay(key);
      }
      assert.equal(r?.status, 201, `key ${key} after restart: ${r?.status} ${JSON.stringify(r?.json)}`);
      const again = await pay(key);
      assert.equal(again?.json?.id, r!.json!.id, 'a second retry replays the same payment');
    }
    for (const key of [...confirmed.keys(), ...lost]) {
      const { count } = await database.db
        .selectFrom('payments')
        .select((eb) => eb.fn.countAll<number>().as('count'))
        .where('account', '=', key)
        .executeTakeFirstOrThrow();
      assert.equal(Number(count), 1, `key ${key} created ${count} payments`);
    }

    // 3. No refresh family with two live tokens.
    const { rows } = await sql<{ grant_id: string; live: number }>`
      select t.grant_id, count(*)::int as live from refresh_tokens t join oauth_grants g on g.id = t.grant_id
      where t.rotated_at is null and g.revoked_at is null group by t.grant_id`.execute(database.db);
    for (const row of rows) assert.ok(row.live <= 1, `family ${row.grant_id} has ${row.live} live tokens`);
    // The client's last known token either still works or is refused cleanly; never a 5xx.
    for (const rt of current) {
      const r = await attempt(`${server.url}/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: rt, client_id: app.id }),
      });
      assert.ok(r && (r.status === 200 || (r.status === 400 && r.json?.error === 'invalid_grant')), `refresh after restart: ${r?.status}`);
    }
    assert.ok(confirmed.size >= KILL_AFTER_PAYMENTS);
    console.log(`kill -9: ${confirmed.size} confirmed payments, ${lost.size} lost answers retried`);
  } finally {
    await server.stop().catch(() => {});
    await database.close();
    await drop();
  }
});
