// What crosses the proxy. Toward the upstream: the client's request minus hop-by-hop headers, minus every
// `gatehouse-*` header the client sent (only the proxy speaks that prefix — a client cannot claim an identity),
// minus the token and proof unless --pass-token, plus the verified identity. Back to the client: the upstream's
// response minus hop-by-hop headers, its body streamed as it comes (server-sent events, chunked).
import type { IncomingHttpHeaders, OutgoingHttpHeaders } from 'node:http';
import type { Identity } from '@gatehouse/resource-server';

/** RFC 9110 §7.6.1 hop-by-hop fields, and the ones a proxy always sets itself. */
const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'proxy-authenticate',
  'proxy-authorization',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
]);

// Every `gatehouse-…` header a client sends is dropped, and `gatehouse_…` too: CGI-style upstreams (PHP,
// Django, Rack) read `-` and `_` as the same character (HTTP_GATEHOUSE_ACR), so an underscore spelling
// would pass for one of our identity headers.
const CLAIMS_OUR_IDENTITY = /^gatehouse[-_]/;

/** The identity headers the upstream can trust (docs/protect.md). */
export function identityHeaders(identity: Identity): Record<string, string> {
  return {
    'gatehouse-subject': identity.sub,
    'gatehouse-client': identity.clientId,
    'gatehouse-scope': [...identity.scopes].join(' '),
    'gatehouse-kind': identity.kind,
    ...(identity.acr !== undefined ? { 'gatehouse-acr': identity.acr } : {}),
    ...(identity.act !== undefined ? { 'gatehouse-act': JSON.stringify(identity.act) } : {}),
  };
}

// A token reused from the kit's verified-token cache comes with the same Identity object: its headers are built
// once per token, not per request. Weak, so they leave with the cache entry.
const identityHeadersOf = new WeakMap<Identity, Record<string, string>>();
function cachedIdentityHeaders(identity: Identity): Record<string, string> {
  let headers = identityHeadersOf.get(identity);
  if (headers === undefined) identityHeadersOf.set(identity, (headers = identityHeaders(identity)));
  return headers;
}

/** Header names a `Connection` header declares hop-by-hop (RFC 9110 §7.6.1). */
function connectionListed(headers: IncomingHttpHeaders): Set<string> {
  const value = headers.connection;
  return new Set(
    (Array.isArray(value) ? value.join(',') : (value ?? ''))
      .split(',')
      .map((v) => v.trim().toLowerCase())
      .filter(Boolean),
  );
}

export function upstreamRequestHeaders(
  incoming: IncomingHttpHeaders,
  identity: Identity,
  context: { passToken: boolean; remoteAddress: string | undefined; host: string | undefined; proto: string },
): OutgoingHttpHeaders {
  // One copy of the headers, written into directly (this runs on every forwarded request).
  const listed = incoming.connection === undefined ? undefined : connectionListed(incoming);
  const out: OutgoingHttpHeaders = {};
  for (const name in incoming) {
    const value = incoming[name];
    if (value === undefined || HOP_BY_HOP.has(name) || listed?.has(name) || CLAIMS_OUR_IDENTITY.test(name)) continue;
    if (!context.passToken && (name === 'authorization' || name === 'dpop')) continue;
    out[name] = value;
  }
  const forwardedFor = incoming['x-forwarded-for'];
  if (context.remoteAddress) out['x-forwarded-for'] = forwardedFor ? `${forwardedFor}, ${context.remoteAddress}` : context.remoteAddress;
  if (!incoming['x-forwarded-proto']) out['x-forwarded-proto'] = context.proto;
  if (!incoming['x-forwarded-host'] && context.host) out['x-forwarded-host'] = context.host;
  const verified = cachedIdentityHeaders(identity);
  for (const name in verified) out[name] = verified[name];
  return out;
}

export function clientResponseHeaders(upstream: IncomingHttpHeaders): OutgoingHttpHeaders {
  const listed = upstream.connection === undefined ? undefined : connectionListed(upstream);
  const out: OutgoingHttpHeaders = {};
  for (const name in upstream) {
    const value = upstream[name];
    if (value === undefined || HOP_BY_HOP.has(name) || listed?.has(name)) continue;
    out[name] = value;
  }
  return out;
}
