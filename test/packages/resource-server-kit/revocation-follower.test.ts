// The revocation list a resource server follows over HTTP (revocationFollower), against a real HTTP server that
// answers as GET /resource-server/revocations does — with what a test needs it to answer: several pages, malformed
// entries, more entries than the copy's bound. Each rule has a test named after it that fails with the rule removed.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { revocationFollower, RevocationsUnavailable, type Clock } from '@gatehouse/resource-server';

interface FeedAnswer {
  cursor: string;
  complete: boolean;
  tokens: unknown[];
  clients: unknown[];
  next?: string;
}

const servers: Server[] = [];
after(async () => {
  for (const server of servers) await new Promise<void>((resolve) => server.close(() => resolve()));
});

/** A feed at {issuer}/resource-server/revocations answering `answer(url)`; the requested URLs are recorded. */
async function feed(answer: (url: URL) => FeedAnswer): Promise<{ issuer: string; requests: URL[] }> {
  const requests: URL[] = [];
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://feed.test');
    requests.push(url);
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify(answer(url)));
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { issuer: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, requests };
}

function testClock(): Clock & { advance(ms: number): void } {
  let offset = 0;
  return { now: () => Date.now() + offset, advance: (ms) => (offset += ms) };
}

const inAnHour = () => Math.floor(Date.now() / 1000) + 3600;
const token = (jti: string, clientId = 'client-1') => ({ jti, clientId, iat: Math.floor(Date.now() / 1000) - 10 });
/** Polled by the test only: the follower's own timer is an hour away. */
const manual = { clientId: 'rs', clientSecret: 'secret', intervalMs: 3_600_000, timeoutMs: 5_000 };

test('malformed feed entries are logged and handled deliberately: a jti with an unreadable exp stays revoked, a client with an unreadable bound covers every token so far, an entry naming nothing is skipped', async () => {
  const { issuer } = await feed(() => ({
    cursor: '1',
    complete: true,
    tokens: [{ jti: 'exp-unreadable', exp: 'soon' }, { exp: inAnHour() }, null, { jti: 'fine', exp: inAnHour() }],
    clients: [{ client_id: 'client-bad-bound', covers_issued_until: 'x', exp: inAnHour() }],
  }));
  const logged: { message: string; action: string }[] = [];
  const follower = revocationFollower({ ...manual, issuer, onMalformed: (message, detail) => logged.push({ message, action: detail.action }) });
  try {
    await follower.ready;
    assert.equal(await follower.isRevoked(token('exp-unreadable')), true, 'kept revoked, not NaN and ignored');
    assert.equal(await follower.isRevoked(token('fine')), true);
    assert.equal(await follower.isRevoked(token('other', 'client-bad-bound')), true, 'a token of that client issued before it was read');
    assert.deepEqual(
      logged.map((l) => l.action),
      ['kept', 'skipped', 'skipped', 'kept'],
    );
    assert.ok(logged.every((l) => /^malformed revocation (token|client) entry/.test(l.message)));
  } finally {
    follower.stop();
  }
});

test('paged feed: the follower reads every page of a listing, then catches up from the cursor of its first page', async () => {
  const { issuer, requests } = await feed((url) => {
    if (url.searchParams.get('page') === 'second')
      return {
        cursor: '1000',
        complete: true,
        tokens: [{ jti: 'on-page-2', exp: inAnHour() }],
        clients: [{ client_id: 'c2', covers_issued_until: 1, exp: inAnHour() }],
      };
    if (url.searchParams.has('since')) return { cursor: '2000', complete: false, tokens: [], clients: [] };
    return { cursor: '1000', complete: false, tokens: [{ jti: 'on-page-1', exp: inAnHour() }], clients: [], next: 'second' };
  });
  const follower = revocationFollower({ ...manual, issuer });
  try {
    await follower.ready;
    assert.equal(await follower.isRevoked(token('on-page-1')), true);
    assert.equal(await follower.isRevoked(token('on-page-2')), true);
    await follower.poll();
    assert.equal(requests.at(-1)?.searchParams.get('since'), '1000');
  } finally {
    follower.stop();
  }
});

test('bounded copy: past maxEntries it stops growing and fails closed (503), then, once expiry has made room, reloads in full and vouches again', async () => {
  const clock = testClock();
  let expiring = true;
  const soon = () => Math.floor(clock.now() / 1000) + 60;
  const { issuer, requests } = await feed((url) => ({
    cursor: String(clock.now()),
    complete: !url.searchParams.has('since'),
    tokens: expiring ? Array.from({ length: 10 }, (_, i) => ({ jti: `t${i}`, exp: soon() })) : [{ jti: 'later', exp: soon() + 3600 }],
    clients: [],
  }));
  const overflows: number[] = [];
  const follower = revocationFollower({ ...manual, fullReloadMs: 3_600_000, issuer, clock, maxEntries: 5, onOverflow: (max) => overflows.push(max) });
  try {
    await follower.ready;
    assert.equal(follower.size(), 5, 'it stopped growing at its bound');
    assert.deepEqual(overflows, [5]);
    assert.equal(follower.usable(), false);
    assert.equal(follower.known(token('unlisted')), undefined, 'it cannot vouch for "not revoked"');
    await assert.rejects(follower.isRevoked(token('unlisted')), RevocationsUnavailable);
    expiring = false;
    clock.advance(120_000);
    const before = requests.length;
    await follower.poll();
    assert.equal(requests[before]?.search, '', 'a full listing after room was made');
    assert.equal(follower.usable(), true);
    assert.equal(await follower.isRevoked(token('unlisted')), false);
    assert.equal(await follower.isRevoked(token('later')), true);
  } finally {
    follower.stop();
  }
});
