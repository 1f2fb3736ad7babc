// The address classifier behind every client-steered request (jwks_uri): only 'public' may be reached.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { classifyAddress, type AddressClass } from '../../../src/http/outbound/address-class.js';

const cases: [string, AddressClass][] = [
  // Public addresses stay reachable.
  ['8.8.8.8', 'public'],
  ['1.1.1.1', 'public'],
  ['93.184.215.14', 'public'],
  ['100.63.255.255', 'public'],
  ['100.128.0.0', 'public'],
  ['172.15.255.255', 'public'],
  ['172.32.0.0', 'public'],
  ['169.253.255.255', 'public'],
  ['2606:4700:4700::1111', 'public'],
  ['2001:4860:4860::8888', 'public'],
  ['[2a00:1450:4001:82b::200e]', 'public'],
  ['::ffff:8.8.8.8', 'public'],
  ['64:ff9b::808:808', 'public'],
  // Loopback, in every spelling.
  ['127.0.0.1', 'loopback'],
  ['127.255.255.254', 'loopback'],
  ['::1', 'loopback'],
  ['[::1]', 'loopback'],
  ['0:0:0:0:0:0:0:1', 'loopback'],
  ['::ffff:127.0.0.1', 'loopback'],
  ['::ffff:7f00:1', 'loopback'],
  ['0:0:0:0:0:ffff:7f00:0001', 'loopback'],
  ['64:ff9b::127.0.0.1', 'loopback'],
  // Unspecified.
  ['0.0.0.0', 'unspecified'],
  ['0.1.2.3', 'unspecified'],
  ['::', 'unspecified'],
  ['::ffff:0.0.0.0', 'unspecified'],
  // RFC 1918 and ULA.
  ['10.0.0.1', 'private'],
  ['10.255.255.255', 'private'],
  ['172.16.0.1', 'private'],
  ['172.31.255.255', 'private'],
  ['192.168.1.1', 'private'],
  ['::ffff:10.1.2.3', 'private'],
  ['::ffff:c0a8:101', 'private'],
  ['fc00::1', 'private'],
  ['fd12:3456:789a::1', 'private'],
  // CGNAT (RFC 6598), where some clouds put their metadata service (Alibaba 100.100.100.200).
  ['100.64.0.1', 'shared'],
  ['100.100.100.200', 'shared'],
  ['100.127.255.255', 'shared'],
  ['::ffff:100.64.0.1', 'shared'],
  // Link-local and cloud metadata.
  ['169.254.0.1', 'link-local'],
  ['169.254.169.253', 'link-local'],
  ['fe80::1', 'link-local'],
  ['fe80::1%eth0', 'link-local'],
  ['febf::1', 'link-local'],
  ['169.254.169.254', 'cloud-metadata'],
  ['::ffff:169.254.169.254', 'cloud-metadata'],
  ['::ffff:a9fe:a9fe', 'cloud-metadata'],
  ['fd00:ec2::254', 'cloud-metadata'],
  // Multicast, documentation and other special-purpose space.
  ['224.0.0.1', 'multicast'],
  ['239.255.255.250', 'multicast'],
  ['ff02::1', 'multicast'],
  ['192.0.2.1', 'documentation'],
  ['198.51.100.7', 'documentation'],
  ['203.0.113.9', 'documentation'],
  ['2001:db8::1', 'documentation'],
  ['255.255.255.255', 'reserved'],
  ['240.0.0.1', 'reserved'],
  ['198.18.0.1', 'reserved'],
  ['192.0.0.8', 'reserved'],
  ['::127.0.0.1', 'reserved'],
  ['2002:7f00:1::1', 'reserved'],
  ['2001:0:4136:e378:8000:63bf:3fff:fdd2', 'reserved'],
  ['fec0::1', 'reserved'],
  ['100::1', 'reserved'],
  ['64:ff9b:1::1', 'reserved'],
  // Not addresses at all: names are resolved first, then classified.
  ['localhost', 'not-an-address'],
  ['example.com', 'not-an-address'],
  ['127.1', 'not-an-address'],
  ['0x7f000001', 'not-an-address'],
  ['', 'not-an-address'],
];

test('the address classifier puts every special-purpose address outside "public" (loopback, RFC 1918, ULA, link-local, metadata, CGNAT, IPv4-mapped)', () => {
  for (const [address, expected] of cases) assert.equal(classifyAddress(address), expected, address);
});
