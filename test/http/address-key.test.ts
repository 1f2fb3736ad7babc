// Whom an anonymous registration is counted against: an IPv4 address, or an IPv6 /64 (one subscriber's
// allocation; counting IPv6 per address would give one party 2^64 budgets).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { addressKey } from '../../src/http/address-key.js';

test('open registration budget key: IPv6 addresses of one /64 share one key, in every spelling; IPv4 is per address', () => {
  const key = '2001:db8:1:2::/64';
  for (const address of [
    '2001:db8:1:2::1',
    '2001:0db8:0001:0002:0000:0000:0000:0001',
    '2001:DB8:1:2:ffff:ffff:ffff:ffff',
    '2001:db8:1:2:a::b',
    '2001:db8:1:2::9%eth0',
  ])
    assert.equal(addressKey(address), key, address);
  assert.equal(addressKey('2001:db8:1:3::1'), '2001:db8:1:3::/64');
  assert.equal(addressKey('::1'), '0:0:0:0::/64');
  assert.equal(addressKey('2001:db8::1.2.3.4'), '2001:db8:0:0::/64');
  assert.equal(addressKey('203.0.113.7'), '203.0.113.7');
  assert.equal(addressKey('::ffff:203.0.113.7'), '203.0.113.7');
  assert.equal(addressKey('::ffff:cb00:7107'), '203.0.113.7');
});
