// Whom a per-address budget counts against (docs/rate-limits.md, "Addresses"): every per-address rate limit
// and the open-registration budget (docs/agents.md). An IPv4 address is scarce, so it is its own key. An IPv6 host is handed a whole /64 (RFC 4291 2.5.4: the interface identifier
// is 64 bits; SLAAC and privacy addresses pick within it freely), so one party holds 2^64 addresses: counting
// per address would be no budget at all. The /64 is the unit an ISP or a host assigns, so it is the key.
import { isIPv4, isIPv6 } from 'node:net';

/** The 8 groups of an IPv6 address (with an embedded IPv4 tail expanded), or undefined when it is not one. */
function ipv6Groups(address: string): number[] | undefined {
  const bare = address.split('%')[0]!;
  if (!isIPv6(bare)) return undefined;
  let text = bare.toLowerCase();
  const v4 = /(\d+\.\d+\.\d+\.\d+)$/.exec(text)?.[1];
  if (v4) {
    const [a, b, c, d] = v4.split('.').map(Number) as [number, number, number, number];
    text = `${text.slice(0, -v4.length)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head, tail] = text.includes('::') ? (text.split('::') as [string, string]) : [text, undefined];
  const parse = (part: string) => (part === '' ? [] : part.split(':').map((g) => Number.parseInt(g, 16)));
  const left = parse(head);
  const right = tail === undefined ? [] : parse(tail);
  const groups = tail === undefined ? left : [...left, ...new Array<number>(8 - left.length - right.length).fill(0), ...right];
  return groups.length === 8 ? groups : undefined;
}

/** `203.0.113.7` → itself; `2001:db8:1:2:a:b:c:d` → `2001:db8:1:2::/64`; an IPv4-mapped IPv6 address → its IPv4 address. */
export function addressKey(address: string): string {
  if (isIPv4(address)) return address;
  const groups = ipv6Groups(address);
  if (!groups) return address;
  const mapped = groups.slice(0, 5).every((g) => g === 0) && groups[5] === 0xffff;
  if (mapped) return [groups[6]! >> 8, groups[6]! & 0xff, groups[7]! >> 8, groups[7]! & 0xff].join('.');
  return `${groups
    .slice(0, 4)
    .map((g) => g.toString(16))
    .join(':')}::/64`;
}
