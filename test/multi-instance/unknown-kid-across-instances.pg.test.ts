// Issue 28: right after a key rotation, instance B refused tokens instance A had just signed with the new key.
// B's copy of the key rows was taken before the rotation committed, and its one re-read for an unknown kid per
// second had just been spent on tokens with invented kids, so it refused without reading. The rule: an
// instance never refuses a kid it has not read yet on a copy older than the token; it waits for the next
// re-read instead (still at most one per cooldown, so invented kids cost no more database reads).
//
// Two real server processes on one PostgreSQL. The rotation is made by this process's own core, the same
// KeyService `keys rotate` runs, inside a transaction held open past the key's activation time — what a
// rotation of both algorithms does when generating the RSA key pair in the transaction takes longer than the
// schedule's slack (here JWKS_CACHE_TTL = CLOCK_SKEW = 0). Tokens are verified continuously, crosswise,
// across the commit and several re-reads of the key rows, among invented kids. While the transaction is open
// only B is busy, so A's first read after the commit comes at once while B still holds rows read just
// before it: the two instances' 1 s re-reads are out of step, as they are in production.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { performance } from 'node:perf_hooks';
import * as oauth from 'oauth4webapi';
import { decodeProtectedHeader, generateKeyPair, SignJWT } from 'jose';
import { systemClock } from '../../src/clock.js';
import { parseConfig } from '../../src/config.js';
import { createCore } from '../../src/core.js';
import { createStore } from '../../src/storage/store.js';
import { openPostgres, type Database } from '../../src/storage/driver/database.js';
import { createPostgresDatabaseUrl } from '../helpers/database.js';
import { startInstances, type Instances } from './instances.js';

const SECRET = 'a-chosen-client-secret-of-forty-characters';
/** How long the rotation's transaction stays open: past the key's activation time (1 s after it was written). */
const SLOW_COMMIT_MS = 2500;
/** Verification goes on this long after both instances sign with the new key: several 1 s re-reads. */
const AFTER_SWITCH_MS = 4000;
const DEADLINE_MS = 60_000;

let database: { url: string; drop(): Promise<void> };
let rotatorDb: Database;
let gh: Instances;
let clientId: string;

before(async () => {
  database = await createPostgresDatabaseUrl();
  gh = await startInstances({
    databaseUrl: database.url,
    env: { JWKS_CACHE_TTL: '0', CLOCK_SKEW: '0', KEY_REFRESH_INTERVAL: '1', RATE_LIMIT_TOKEN: '100000', RATE_LIMIT_API: '100000' },
  });
  clientId = String(
    (
      await gh.cli(
        'clients',
        'create',
        '--name',
        'Crosswise verifier',
        '--type',
        'confidential',
        '--redirect-uri',
        'https://client.example/cb',
        '--grant-types',
        'client_credentials',
        '--scope',
        'orders:read',
        '--secret',
        SECRET,
      )
    ).client_id,
  );
  rotatorDb = await openPostgres(database.url, 2);
});

after(async () => {
  await gh?.stop();
  await rotatorDb?.close();
  await database?.drop();
});

async function serviceToken(base: string): Promise<string> {
  const as = { issuer: gh.issuer, token_endpoint: `${base}/token` };
  const client = { client_id: clientId };
  const response = await oauth.clientCredentialsGrantRequest(
    as,
    client,
    oauth.ClientSecretBasic(SECRET),
    { scope: 'orders:read' },
    { [oauth.allowInsecureRequests]: true },
  );
  return (await oauth.processClientCredentialsResponse(as, client, response)).access_token;
}

const presented = (base: string, token: string) => fetch(`${base}/v1/orders?user_id=nobody`, { headers: { authorization: `Bearer ${token}` } });

test('an instance accepts a token another instance signed with a key it has not read yet, across a rotation and re-reads of the key rows, among invented kids', async (t) => {
  const rotator = createCore({ config: parseConfig(gh.env), clock: systemClock, database: rotatorDb });
  const { privateKey } = await generateKeyPair('ES256');
  const instances = { A: gh.a.url, B: gh.b.url };
  const refused: string[] = [];
  const forgedAccepted: string[] = [];
  const switched = new Map<string, number>();
  let newKid = '';
  let crosswise = 0;
  let done = false;
  /** While the rotation's transaction is open, A is left alone. */
  let holding = false;
  const busy = () => (holding ? [['B', gh.b.url] as const] : Object.entries(instances));

  // Tokens with invented kids at both instances, ten a second: each spends its instance's unknown-kid re-read.
  const invent = async () => {
    for (let i = 0; !done; i++) {
      const forged = await new SignJWT({ sub: 'nobody' }).setProtectedHeader({ alg: 'ES256', typ: 'at+jwt', kid: `invented-${i}` }).sign(privateKey);
      await Promise.all(
        busy().map(async ([name, base]) => {
          if ((await presented(base, forged)).status !== 401) forgedAccepted.push(name);
        }),
      );
      await sleep(100);
    }
  };
  // Each instance's fresh tokens, at once presented to the other.
  const verify = async () => {
    const end = performance.now() + DEADLINE_MS;
    while (performance.now() < end && !(switched.size === 2 && performance.now() > Math.max(...switched.values()) + AFTER_SWITCH_MS)) {
      await Promise.all(
        (holding ? [['B', 'B'] as const] : [['A', 'B'] as const, ['B', 'A'] as const]).map(async ([signer, verifier]) => {
          const token = await serviceToken(instances[signer]);
          const kid = String(decodeProtectedHeader(token).kid);
          if (kid === newKid && !switched.has(signer)) switched.set(signer, performance.now());
          if (kid === newKid) crosswise += 1;
          const response = await presented(instances[verifier], token);
          if (response.status !== 200)
            refused.push(`${signer}→${verifier} ${kid === newKid ? 'new' : 'old'} key: ${response.status} ${response.headers.get('www-authenticate')}`);
        }),
      );
    }
    done = true;
  };
  const rotate = async () => {
    await sleep(1000);
    holding = true;
    await createStore(rotatorDb.db, systemClock).transaction(async (tx) => {
      newKid = (await rotator.keys.rotate('ES256', tx.signingKeys)).kid;
      await sleep(SLOW_COMMIT_MS);
    });
    holding = false;
  };
  await Promise.all([invent(), verify(), rotate()]);

  t.diagnostic(`${crosswise} tokens signed with the new key were presented to the other instance; ${refused.length} refused`);
  assert.equal(switched.size, 2, 'both instances signed with the new key');
  assert.ok(crosswise >= 10, `${crosswise} tokens with the new key were presented crosswise`);
  assert.deepEqual(forgedAccepted, [], 'invented kids are refused');
  assert.deepEqual(refused, [], 'every token was accepted at its first presentation to the other instance');
});
