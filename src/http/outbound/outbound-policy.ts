// Where a request the server makes on a client's behalf (its jwks_uri) may go. The host is resolved once,
// every address it resolves to is checked, and the connection is made to the checked address (see
// pinned-get.ts), so a name that resolves differently a moment later (DNS rebinding) cannot redirect it.
import { lookup } from 'node:dns/promises';
import { classifyAddress, type AddressClass } from './address-class.js';

export interface ResolvedAddress {
  address: string;
  family: number;
}

export interface OutboundPolicy {
  /** Address classes reachable besides 'public'. Production: none; tests allow 'loopback' for local servers. */
  readonly allowedClasses: readonly AddressClass[];
  /** Whether plain http is accepted. Production: no. */
  readonly allowHttp: boolean;
  /** Every address of a host name. */
  readonly resolve: (hostname: string) => Promise<ResolvedAddress[]>;
  /**
   * Host names or IP addresses an operator declared internal receivers (WEBHOOK_ALLOWED_HOSTS): reachable
   * whatever their addresses are, over http too. Nothing else is, unless `allowedClasses` says so.
   */
  readonly allowedHosts?: readonly string[];
  /** Certificate authorities trusted for https instead of the system's: tests' local https servers only. */
  readonly ca?: string;
}

export const STRICT_OUTBOUND: OutboundPolicy = {
  allowedClasses: [],
  allowHttp: false,
  resolve: (hostname) => lookup(hostname, { all: true, verbatim: true }),
};

export type OutboundRefusalCode = 'url_refused' | 'address_refused' | 'resolution_failed' | 'timeout' | 'too_large' | 'http_status' | 'request_failed';

export class OutboundRefused extends Error {
  override readonly name = 'OutboundRefused';
  constructor(
    readonly code: OutboundRefusalCode,
    message: string,
  ) {
    super(message);
  }
}

export interface CheckedTarget {
  url: URL;
  /** The checked address the connection must use. */
  address: ResolvedAddress;
}

const bareHost = (url: URL) => url.hostname.replace(/^\[(.*)\]$/, '$1').toLowerCase();

/** Whether the operator allow-listed this URL's host (an internal receiver). */
export const allowListed = (url: URL, policy: Pick<OutboundPolicy, 'allowedHosts'>): boolean => (policy.allowedHosts ?? []).includes(bareHost(url));

function checkedUrl(raw: string, policy: OutboundPolicy): URL {
  if (!URL.canParse(raw)) throw new OutboundRefused('url_refused', 'not an absolute URL');
  const url = new URL(raw);
  const httpAllowed = policy.allowHttp || allowListed(url, policy);
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && httpAllowed)) throw new OutboundRefused('url_refused', 'must use https');
  if (url.username || url.password) throw new OutboundRefused('url_refused', 'must not contain user information');
  if (url.hash) throw new OutboundRefused('url_refused', 'must not contain a fragment');
  if (!url.hostname) throw new OutboundRefused('url_refused', 'must name a host');
  return url;
}

const familyOf = (address: string) => (address.includes(':') ? 6 : 4);

async function addressesOf(host: string, policy: OutboundPolicy): Promise<ResolvedAddress[]> {
  if (classifyAddress(host) !== 'not-an-address') return [{ address: host, family: familyOf(host) }];
  // RFC 6761 6.3: localhost names are loopback whatever DNS says; refuse them without asking.
  if ((host === 'localhost' || host.endsWith('.localhost')) && !policy.allowedClasses.includes('loopback')) {
    throw new OutboundRefused('address_refused', `${host} is a loopback name`);
  }
  let resolved: ResolvedAddress[];
  try {
    resolved = await policy.resolve(host);
  } catch {
    throw new OutboundRefused('resolution_failed', `${host} does not resolve`);
  }
  if (resolved.length === 0) throw new OutboundRefused('resolution_failed', `${host} does not resolve`);
  return resolved;
}

/** The URL and the one address to connect to, or OutboundRefused. Every address of the host must be allowed. */
export async function checkedTarget(raw: string, policy: OutboundPolicy): Promise<CheckedTarget> {
  const url = checkedUrl(raw, policy);
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  const listed = allowListed(url, policy);
  const addresses = await addressesOf(host, listed ? { ...policy, allowedClasses: [...policy.allowedClasses, 'loopback'] } : policy);
  // An allow-listed host is the operator's own receiver: its addresses are whatever the operator made them.
  if (listed) return { url, address: addresses[0]! };
  for (const { address } of addresses) {
    const kind = classifyAddress(address);
    if (kind !== 'public' && !policy.allowedClasses.includes(kind)) throw new OutboundRefused('address_refused', `${host} is or resolves to a ${kind} address`);
  }
  return { url, address: addresses[0]! };
}
