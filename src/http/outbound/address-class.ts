// Which kind of address an outbound request would reach (IANA IPv4/IPv6 Special-Purpose Address Registries,
// RFC 6890). Requests a client can steer (its jwks_uri) may reach only 'public' addresses: anything else is
// the server's own host, its private network or a cloud metadata service. IPv6 forms that carry an IPv4
// address (IPv4-mapped ::ffff:0:0/96, NAT64 64:ff9b::/96) are judged by that IPv4 address; other IPv6
// space counts as public only inside global unicast 2000::/3.
import { isIPv4, isIPv6 } from 'node:net';

export type AddressClass =
  | 'public'
  | 'unspecified'
  | 'loopback'
  | 'private'
  | 'shared'
  | 'link-local'
  | 'cloud-metadata'
  | 'multicast'
  | 'documentation'
  | 'reserved'
  | 'not-an-address';

type Range = { bytes: number[]; prefix: number; kind: AddressClass | 'embedded-ipv4' };

function ipv4Bytes(ip: string): number[] {
  return ip.split('.').map(Number);
}

function ipv6Bytes(ip: string): number[] {
  let text = ip.toLowerCase();
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (dotted) {
    const [a, b, c, d] = ipv4Bytes(dotted[1]!);
    text = `${text.slice(0, -dotted[1]!.length)}${((a! << 8) | b!).toString(16)}:${((c! << 8) | d!).toString(16)}`;
  }
  const [head, tail] = text.includes('::') ? text.split('::') : [text, undefined];
  const groups = (part: string | undefined) => (part ? part.split(':') : []);
  const fill = tail === undefined ? [] : Array<string>(8 - groups(head).length - groups(tail).length).fill('0');
  return [...groups(head), ...fill, ...groups(tail)].flatMap((g) => {
    const n = parseInt(g, 16);
    return [n >> 8, n & 0xff];
  });
}

const range = (cidr: string, kind: Range['kind']): Range => {
  const [net, prefix] = cidr.split('/');
  return { bytes: isIPv4(net!) ? ipv4Bytes(net!) : ipv6Bytes(net!), prefix: Number(prefix), kind };
};

// First match wins, so a narrower range comes before the one containing it.
const IPV4: readonly Range[] = [
  range('169.254.169.254/32', 'cloud-metadata'),
  range('0.0.0.0/8', 'unspecified'),
  range('10.0.0.0/8', 'private'),
  range('100.64.0.0/10', 'shared'),
  range('127.0.0.0/8', 'loopback'),
  range('169.254.0.0/16', 'link-local'),
  range('172.16.0.0/12', 'private'),
  range('192.0.0.0/24', 'reserved'),
  range('192.0.2.0/24', 'documentation'),
  range('192.88.99.0/24', 'reserved'),
  range('192.168.0.0/16', 'private'),
  range('198.18.0.0/15', 'reserved'),
  range('198.51.100.0/24', 'documentation'),
  range('203.0.113.0/24', 'documentation'),
  range('224.0.0.0/4', 'multicast'),
  range('240.0.0.0/4', 'reserved'),
];

const IPV6: readonly Range[] = [
  range('::/128', 'unspecified'),
  range('::1/128', 'loopback'),
  range('::ffff:0:0/96', 'embedded-ipv4'),
  range('64:ff9b::/96', 'embedded-ipv4'),
  range('fd00:ec2::254/128', 'cloud-metadata'),
  range('2001:db8::/32', 'documentation'),
  // IETF protocol assignments (Teredo, ORCHID, ...) and deprecated 6to4, which tunnel to other addresses.
  range('2001::/23', 'reserved'),
  range('2002::/16', 'reserved'),
  range('fc00::/7', 'private'),
  range('fe80::/10', 'link-local'),
  range('ff00::/8', 'multicast'),
  range('2000::/3', 'public'),
];

function matches(bytes: number[], r: Range): boolean {
  for (let bit = 0; bit < r.prefix; bit += 8) {
    const bits = Math.min(8, r.prefix - bit);
    const mask = (0xff << (8 - bits)) & 0xff;
    if ((bytes[bit / 8]! & mask) !== (r.bytes[bit / 8]! & mask)) return false;
  }
  return true;
}

function classifyIpv4(bytes: number[]): AddressClass {
  const found = IPV4.find((r) => matches(bytes, r));
  return (found?.kind as AddressClass | undefined) ?? 'public';
}

/** The class of an IP address literal (IPv6 with or without brackets or zone); 'not-an-address' otherwise. */
export function classifyAddress(address: string): AddressClass {
  const bare = address.replace(/^\[(.*)\]$/, '$1');
  if (isIPv4(bare)) return classifyIpv4(ipv4Bytes(bare));
  if (!isIPv6(bare)) return 'not-an-address';
  // A zone index (fe80::1%eth0) only exists for link-scoped addresses; the class comes from the address.
  const bytes = ipv6Bytes(bare.replace(/%.*$/, ''));
  const found = IPV6.find((r) => matches(bytes, r));
  if (!found) return 'reserved';
  return found.kind === 'embedded-ipv4' ? classifyIpv4(bytes.slice(12)) : found.kind;
}
