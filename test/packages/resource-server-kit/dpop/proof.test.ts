// The DPoP replay set of a resource server (memoryProofReplay, the default of the kit and of `gatehouse protect`):
// bounded so that one client cannot make every other DPoP client of the resource refused. Real tokens signed by a
// test issuer whose JWKS a real HTTP server publishes, proofs signed by real keys; each rule has a test named after
// it that fails with the rule removed.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { memoryProofReplay, resourceServer, type Clock, type ProofReplayStore, type ResourceServer } from '@gatehouse/resource-server';
import { calculateJwkThumbprint } from 'jose';
import { claims, sign, startJwksServer, testIssuerKeys, type JwksServer, type TestIssuerKeys } from '../../../resource-server/auth/forge.js';
import { dpopKey, dpopProof, type DpopKey } from '../../../helpers/dpop.js';
import { sha256 } from '../../../../src/crypto/random.js';

const ISSUER = 'https://issuer.test';
const RESOURCE = 'https://notes.test/mcp';
const HTU = 'https://notes.test/mcp/notes';
let keys: TestIssuerKeys;
let jwks: JwksServer;

before(async () => {
  keys = await testIssuerKeys();
  jwks = await startJwksServer(() => [keys.publicJwk]);
});
after(() => jwks.close());

/** A clock the test moves; starts at the real time (the tokens' iat/exp are real). */
function testClock(): Clock & { advance(ms: number): void } {
  let offset = 0;
  return { now: () => Date.now() + offset, advance: (ms) => (offset += ms) };
}

function server(replay: ProofReplayStore, clock: Clock = testClock()): ResourceServer {
  return resourceServer({ issuer: ISSUER, resource: RESOURCE, jwksUrl: jwks.url, routes: ['GET /mcp/notes*=notes:read'], dpop: { replay }, clock });
}

/** A DPoP-bound token of `clientId` and the key it is bound to. */
async function boundToken(clientId: string): Promise<{ token: string; key: DpopKey }> {
  const key = await dpopKey();
  const jkt = await calculateJwkThumbprint(key.jwk);
  const token = await sign(claims(ISSUER, RESOURCE, { client_id: clientId, sub: clientId, scope: 'notes:read', cnf: { jkt } }), keys.privateKey, {
    alg: 'ES256',
    typ: 'at+jwt',
    kid: keys.kid,
  });
  return { token, key };
}

async function call(rs: ResourceServer, { token, key }: { token: string; key: DpopKey }, signer: DpopKey = key, iat?: number) {
  const proof = await dpopProof(signer, HTU, { htm: 'GET', ath: sha256(token), ...(iat !== undefined ? { iat } : {}) });
  return rs.verifyRequest({ method: 'GET', url: '/mcp/notes', headers: { authorization: `DPoP ${token}`, dpop: proof } });
}

test('DPoP replay budget per client: one client flooding the replay set is refused itself, another client still passes', async () => {
  const rs = server(memoryProofReplay(testClock(), { maxEntries: 20 }));
  const flooder = await boundToken('flooder');
  let refusedAfter = 0;
  for (let i = 1; i <= 25 && refusedAfter === 0; i += 1) if (!(await call(rs, flooder)).ok) refusedAfter = i;
  assert.ok(refusedAfter > 0, 'the flooding client runs out of room');
  const other = await call(rs, await boundToken('other'));
  assert.equal(other.ok, true, 'another client is not refused');
});

test('DPoP replay set holds only proofs bound to the verified token: a proof of another key is refused and takes no room', async () => {
  const consumed: string[] = [];
  const recording: ProofReplayStore = {
    async consume(jkt, jtiHash) {
      consumed.push(`${jkt}.${jtiHash}`);
      return true;
    },
  };
  const rs = server(recording);
  const client = await boundToken('client-1');
  const wrongKey = await call(rs, client, await dpopKey());
  assert.equal(wrongKey.ok === false && wrongKey.reason, 'dpop_proof');
  assert.deepEqual(consumed, [], 'nothing was recorded for it');
  assert.equal((await call(rs, client)).ok, true);
  assert.equal(consumed.length, 1);
});

test('DPoP replay entries expire with the proof’s iat window: a client whose budget is spent passes again once its proofs are too old to replay', async () => {
  const clock = testClock();
  const rs = server(memoryProofReplay(clock, { maxEntries: 100, maxPerPartition: 3 }), clock);
  const client = await boundToken('client-1');
  const iat = () => Math.floor(clock.now() / 1000);
  for (let i = 0; i < 3; i += 1) assert.equal((await call(rs, client, client.key, iat())).ok, true);
  assert.equal((await call(rs, client, client.key, iat())).ok, false, 'its budget is spent');
  // 60 s of proof age + 30 s of clock skew (+1 s rounding): past that jose refuses the proof anyway.
  clock.advance(92_000);
  assert.equal((await call(rs, client, client.key, iat())).ok, true);
});

test('DPoP replay fair share: ten clients filling the whole store do not lock out an eleventh, which is admitted while the hogs are refused', async () => {
  const rs = server(memoryProofReplay(testClock(), { maxEntries: 50 }));
  const flooders = await Promise.all(Array.from({ length: 10 }, (_, i) => boundToken(`flooder-${i}`)));
  // Each fills its own budget (a tenth of the total): together they fill the store.
  for (const flooder of flooders) for (let i = 0; i < 5; i += 1) assert.equal((await call(rs, flooder)).ok, true);
  for (const flooder of flooders) assert.equal((await call(rs, flooder)).ok, false, 'a hog is refused');
  const victim = await boundToken('victim');
  for (let i = 0; i < 3; i += 1) assert.equal((await call(rs, victim)).ok, true, `the victim's proof ${i + 1} is recorded`);
});

test('DPoP replay store bounded past the total: newcomers under their fair share are admitted, never beyond twice maxEntries', async () => {
  const rs = server(memoryProofReplay(testClock(), { maxEntries: 10, maxPerPartition: 1 }));
  for (let i = 0; i < 20; i += 1) assert.equal((await call(rs, await boundToken(`client-${i}`))).ok, true, `client ${i}`);
  const refused = await call(rs, await boundToken('client-20'));
  assert.equal(refused.ok === false && refused.reason, 'dpop_proof', 'the store holds 20 = 2 × maxEntries: fail closed');
});
