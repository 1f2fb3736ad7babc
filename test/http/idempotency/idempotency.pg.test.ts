// Idempotency keys across processes on one PostgreSQL server: two instances racing one key, a request
// held mid-statement (by a lock this test takes on `payments`, so no sleeps) answering 409 to a
// parallel retry, and a kill -9 mid-transaction (transactional and single-statement paths) after which
// the retry executes exactly once.
import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { parseConfig } from '../../../src/config.js';
import { systemClock } from '../../../src/clock.js';
import { createCore } from '../../../src/core.js';
import { openPostgres, type Database } from '../../../src/storage/driver/database.js';
import { keyIdentity, REPLAY_HEADER } from '../../../src/http/idempotency/index.js';
import { createPostgresDatabaseUrl } from '../../helpers/database.js';
import { startServerProcess, type ServerProcess } from '../../helpers/server-process.js';
import { call, orderBody, shopTokens, type Caller } from '../../helpers/shop.js';

const ISSUER = 'http://gatehouse.test';
let database: { url: string; drop(): Promise<void> };
let db: Database;
let dataDir: string;
let env: Record<string, string>;
const servers: ServerProcess[] = [];

async function startServer(extra: Record<string, string> = {}): Promise<ServerProcess> {
  const server = await startServerProcess({ ...env, ...extra });
  servers.push(server);
  return server;
}

async function mintUser(): Promise<Caller> {
  const core = createCore({ config: parseConfig({ ...env, PORT: '1' }), clock: systemClock, database: db });
  return shopTokens(core).user();
}

const countKeys = async () =>
  Number(
    (
      await db.db
        .selectFrom('idempotency_keys')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .executeTakeFirstOrThrow()
    ).n,
  );

const paymentsForOrder = async (orderId: string) =>
  Number(
    (
      await db.db
        .selectFrom('payments')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('order_id', '=', orderId)
        .executeTakeFirstOrThrow()
    ).n,
  );

const paymentsFor = async (account: string) =>
  Number(
    (
      await db.db
        .selectFrom('payments')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('account', '=', account)
        .executeTakeFirstOrThrow()
    ).n,
  );

/** Holds a lock that blocks every INSERT into payments until released: a request is then paused mid-transaction. */
async function blockPayments(): Promise<{ waiters(): Promise<number[]>; release(): Promise<void> }> {
  const client = new pg.Client({ connectionString: database.url });
  await client.connect();
  await client.query('begin');
  await client.query('lock table payments in share row exclusive mode');
  return {
    async waiters() {
      const { rows } = await client.query<{ pid: number }>(`select pid from pg_locks where relation = 'payments'::regclass and not granted`);
      return rows.map((r) => r.pid);
    },
    async release() {
      await client.query('rollback');
      await client.end();
    },
  };
}

/**
 * Holds an uncommitted row for (user, key) in idempotency_keys: a stand-alone payment's single statement
 * for that key then waits inside the statement, after it took the key's advisory lock.
 */
async function holdKeyRow(sub: string, key: string): Promise<{ waiters(): Promise<number[]>; release(): Promise<void> }> {
  const id = keyIdentity({ clientId: 'shop-app', kind: 'user', sub }, key);
  const client = new pg.Client({ connectionString: database.url });
  await client.connect();
  await client.query('begin');
  await client.query(
    `insert into idempotency_keys (principal_hash, key_hash, request_hash, state, created_at, expires_at)
     values ($1, $2, 'held-by-test', 'running', now(), now() + interval '1 hour')`,
    [id.principalHash, id.keyHash],
  );
  return {
    async waiters() {
      const { rows } = await client.query<{ pid: number }>(`select pid from pg_locks where locktype = 'transactionid' and not granted`);
      return rows.map((r) => r.pid);
    },
    async release() {
      await client.query('rollback');
      await client.end();
    },
  };
}

/** Bounded polling of a real condition (a database round trip per attempt), never a timer. */
async function until<T>(probe: () => Promise<T | undefined>, attempts = 2000): Promise<T> {
  for (let i = 0; i < attempts; i++) {
    const value = await probe();
    if (value !== undefined) return value;
  }
  throw new Error('condition not reached');
}

/**
 * Sends `request`, waits until its database backend queues behind `lock`, then kill -9s the server and
 * releases the lock. The dead process can never send COMMIT: its orphaned backend is ended now rather
 * than whenever PostgreSQL notices.
 */
async function killWhileWaiting(
  server: ServerProcess,
  lock: { waiters(): Promise<number[]>; release(): Promise<void> },
  request: () => Promise<unknown>,
): Promise<void> {
  try {
    const inFlight = request().catch((error: unknown) => error);
    const [orphan] = await until(async () => {
      const pids = await lock.waiters();
      return pids.length > 0 ? pids : undefined;
    });
    assert.equal(await server.stop('SIGKILL'), null);
    assert.ok((await inFlight) instanceof Error, 'the client saw the connection die');
    await db.db.selectNoFrom((eb) => eb.fn('pg_terminate_backend', [eb.val(orphan)]).as('t')).execute();
  } finally {
    await lock.release();
  }
}

before(async () => {
  database = await createPostgresDatabaseUrl();
  db = await openPostgres(database.url, 5);
  dataDir = mkdtempSync(join(tmpdir(), 'gatehouse-idem-pg-'));
  env = {
    NODE_ENV: 'test',
    DATABASE_URL: database.url,
    DATA_DIR: dataDir,
    ISSUER,
    KEY_ENCRYPTION_KEY: randomBytes(32).toString('base64url'),
    RATE_LIMIT_ENABLED: 'false',
    OVERLOAD_MAX_EVENT_LOOP_DELAY: '0',
    LOG_LEVEL: 'info',
  };
});

after(async () => {
  for (const s of servers) await s.stop('SIGKILL').catch(() => {});
  await db.close();
  await database.drop();
  rmSync(dataDir, { recursive: true, force: true });
});

test('two server processes on one PostgreSQL: 20 parallel requests with one key execute exactly once; the rest are 409 or byte-identical replays', async () => {
  const [a, b] = [await startServer(), await startServer()];
  const user = await mintUser();
  const key = randomUUID();
  const account = `two-proc-${randomUUID().slice(0, 8)}`;
  const body = { amount: '42.00', currency: 'EUR', account };
  const results = await Promise.all(Array.from({ length: 20 }, (_, i) => call((i % 2 ? a : b).url, 'POST', '/v1/payments', { token: user.token, key, body })));
  assert.equal(await paymentsFor(account), 1);
  const created = results.filter((r) => r.status === 201);
  assert.equal(created.filter((r) => r.headers.get(REPLAY_HEADER) !== 'true').length, 1);
  assert.equal(new Set(created.map((r) => r.text)).size, 1);
  assert.ok(results.every((r) => r.status === 201 || (r.status === 409 && r.json.code === 'idempotency-key-in-use')));
  // Afterwards both instances replay the same bytes.
  const [ra, rb] = [
    await call(a.url, 'POST', '/v1/payments', { token: user.token, key, body }),
    await call(b.url, 'POST', '/v1/payments', { token: user.token, key, body }),
  ];
  assert.equal(ra.text, created[0]!.text);
  assert.equal(rb.text, created[0]!.text);
  await a.stop();
  await b.stop();
});

test("a request with the same key while the first is still inside its (single) statement gets 409 with Retry-After; afterwards the first one's response is replayed", async () => {
  const server = await startServer();
  const user = await mintUser();
  const key = randomUUID();
  const account = `held-${randomUUID().slice(0, 8)}`;
  const body = { amount: '5.00', currency: 'EUR', account };
  const lock = await holdKeyRow(user.sub, key);
  let first: Promise<Awaited<ReturnType<typeof call>>> | undefined;
  try {
    first = call(server.url, 'POST', '/v1/payments', { token: user.token, key, body });
    await until(async () => ((await lock.waiters()).length > 0 ? true : undefined));
    const parallel = await call(server.url, 'POST', '/v1/payments', { token: user.token, key, body });
    assert.equal(parallel.status, 409);
    assert.equal(parallel.json.code, 'idempotency-key-in-use');
    assert.ok(Number(parallel.headers.get('retry-after')) >= 1);
  } finally {
    await lock.release();
  }
  const original = await first!;
  assert.equal(original.status, 201);
  const replay = await call(server.url, 'POST', '/v1/payments', { token: user.token, key, body });
  assert.equal(replay.text, original.text);
  assert.equal(replay.headers.get(REPLAY_HEADER), 'true');
  assert.equal(await paymentsFor(account), 1);
  await server.stop();
});

test('kill -9 while a keyed order payment is mid-transaction: nothing is committed, and after a restart the retry with the same key executes exactly once', async () => {
  // The transactional path: the key is reserved (committed) before the operation's transaction starts.
  // A 1 s lease: the dead instance's reservation is abandoned by the time a new instance has started.
  const server = await startServer({ IDEMPOTENCY_LEASE: '1' });
  const user = await mintUser();
  const key = randomUUID();
  const order = await call(server.url, 'POST', '/v1/orders', { token: user.token, key: randomUUID(), body: orderBody() });
  assert.equal(order.status, 201);
  const path = `/v1/orders/${order.json.id}/payment`;
  await killWhileWaiting(server, await blockPayments(), () => call(server.url, 'POST', path, { token: user.token, key }));
  assert.equal(await paymentsForOrder(order.json.id), 0, 'the killed transaction committed nothing');
  const record = await db.db.selectFrom('idempotency_keys').select(['state', 'locked_until']).where('response_status', 'is', null).execute();
  assert.ok(
    record.some((r) => r.state === 'running'),
    'the reservation was left behind',
  );

  const restarted = await startServer();
  await until(async () => {
    const row = await db.db
      .selectFrom('idempotency_keys')
      .select('locked_until')
      .where('state', '=', 'running')
      .where('locked_until', '<=', new Date())
      .executeTakeFirst();
    return row ? true : undefined;
  });
  const retry = await call(restarted.url, 'POST', path, { token: user.token, key });
  assert.equal(retry.status, 201);
  assert.equal(retry.headers.get(REPLAY_HEADER), null);
  const again = await call(restarted.url, 'POST', path, { token: user.token, key });
  assert.equal(again.text, retry.text);
  assert.equal(again.headers.get(REPLAY_HEADER), 'true');
  assert.equal(await paymentsForOrder(order.json.id), 1);
  await restarted.stop();
});

test("kill -9 while a stand-alone payment's single statement is running: neither the payment nor the key is committed, and the retry executes at once, exactly once", async () => {
  // The single-statement path reserves, writes and completes together: a crash leaves no reservation to wait out.
  const server = await startServer();
  const user = await mintUser();
  const key = randomUUID();
  const account = `killed-${randomUUID().slice(0, 8)}`;
  const body = { amount: '9.99', currency: 'EUR', account };
  const keysBefore = await countKeys();
  await killWhileWaiting(server, await holdKeyRow(user.sub, key), () => call(server.url, 'POST', '/v1/payments', { token: user.token, key, body }));
  assert.equal(await paymentsFor(account), 0, 'the killed statement committed no payment');
  assert.equal(await countKeys(), keysBefore, 'and no key');

  const restarted = await startServer();
  const retry = await call(restarted.url, 'POST', '/v1/payments', { token: user.token, key, body });
  assert.equal(retry.status, 201);
  assert.equal(retry.headers.get(REPLAY_HEADER), null);
  const again = await call(restarted.url, 'POST', '/v1/payments', { token: user.token, key, body });
  assert.equal(again.text, retry.text);
  assert.equal(again.headers.get(REPLAY_HEADER), 'true');
  assert.equal(await paymentsFor(account), 1);
  await restarted.stop();
});
