// Which peers may hand Gatehouse a trace context (docs/observability.md#whose-trace-context-counts): the
// proxies TRUST_PROXY names, the same list whose X-Forwarded-For Fastify trusts (src/app.ts). Matched against
// the socket's address, never a header. Fastify reads the list with proxy-addr; this reads the same forms:
// an address, a CIDR, an address/netmask, and proxy-addr's names `loopback`, `linklocal`, `uniquelocal`.
// An entry it cannot read trusts nothing (Fastify refuses to start on it anyway).
import { BlockList, isIP } from 'node:net';

const NAMED: Record<string, readonly string[]> = {
  loopback: ['127.0.0.1/8', '::1/128'],
  linklocal: ['169.254.0.0/16', 'fe80::/10'],
  uniquelocal: ['10.0.0.0/8', '172.16.0.0/12', '192.168.0.0/16', 'fc00::/7'],
};

const family = (address: string): 'ipv4' | 'ipv6' | undefined => (isIP(address) === 4 ? 'ipv4' : isIP(address) === 6 ? 'ipv6' : undefined);

/** An IPv4 netmask (255.255.0.0) as a prefix length, when it is one. */
function maskLength(mask: string): number | undefined {
  if (isIP(mask) !== 4) return undefined;
  const bits = mask
    .split('.')
    .map((part) => Number(part).toString(2).padStart(8, '0'))
    .join('');
  if (!/^1*0*$/.test(bits)) return undefined;
  const zero = bits.indexOf('0');
  return zero === -1 ? 32 : zero;
}

function add(list: BlockList, entry: string): void {
  const [address = '', prefix] = entry.split('/');
  const kind = family(address);
  if (!kind) return;
  if (prefix === undefined) {
    list.addAddress(address, kind);
    return;
  }
  const length = /^\d{1,3}$/.test(prefix) ? Number(prefix) : kind === 'ipv4' ? maskLength(prefix) : undefined;
  if (length !== undefined && length <= (kind === 'ipv4' ? 32 : 128)) list.addSubnet(address, length, kind);
}

/** A socket address as the list holds it: an IPv4 address mapped into IPv6 (`::ffff:10.0.0.1`) is the IPv4 one. */
function plain(address: string): string {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  return mapped?.[1] ?? address;
}

/** Whether a socket address is one of the trusted peers; nothing is trusted when the list is empty. */
export function trustedPeers(entries: readonly string[]): (address: string | undefined) => boolean {
  const list = new BlockList();
  for (const entry of entries) for (const range of NAMED[entry.toLowerCase()] ?? [entry]) add(list, range);
  return (address) => {
    if (!address) return false;
    const own = plain(address);
    const kind = family(own);
    return kind !== undefined && list.check(own, kind);
  };
}
