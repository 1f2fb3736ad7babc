// Which socket addresses may hand Gatehouse a trace context: the TRUST_PROXY list, read in the forms Fastify
// (proxy-addr) reads it. Anything unreadable trusts nothing.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { trustedPeers } from '../../src/telemetry/trusted-peers.js';

test('only the peers TRUST_PROXY names are trusted for trace context: addresses, CIDRs, netmasks, the proxy-addr names; an empty list trusts nobody', () => {
  const nobody = trustedPeers([]);
  assert.equal(nobody('127.0.0.1'), false);
  assert.equal(nobody(undefined), false);

  const trusted = trustedPeers(['10.1.2.3', '192.168.0.0/16', '172.20.0.0/255.255.0.0', '2001:db8::/32', 'loopback']);
  assert.equal(trusted('10.1.2.3'), true);
  assert.equal(trusted('10.1.2.4'), false);
  assert.equal(trusted('192.168.44.5'), true);
  assert.equal(trusted('172.20.9.9'), true);
  assert.equal(trusted('172.21.0.1'), false);
  assert.equal(trusted('2001:db8::1'), true);
  assert.equal(trusted('2001:db9::1'), false);
  assert.equal(trusted('127.0.0.1'), true);
  assert.equal(trusted('::1'), true);
  // An IPv4 peer on a dual-stack socket.
  assert.equal(trusted('::ffff:10.1.2.3'), true);
  assert.equal(trusted('::ffff:8.8.8.8'), false);

  const unreadable = trustedPeers(['not-an-address', '10.0.0.0/99', '10.0.0.0/255.0.255.0']);
  assert.equal(unreadable('10.0.0.1'), false);
});
