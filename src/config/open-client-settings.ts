// Settings of clients nobody registered by hand: clients identified by a Client ID Metadata Document (an https
// URL as client_id, draft-ietf-oauth-client-id-metadata-document) and clients that registered themselves
// without an initial access token (REGISTRATION=open). Both get only what an operator allows here
// (docs/agents.md, docs/security/registration-and-client-keys.md).
import { int, list, oneOf, seconds, type Setting } from './setting.js';

const HOST = /^(?:\*\.)?(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*$/;
const hostList = (raw: string) => {
  const hosts = list(raw).map((h) => h.toLowerCase());
  return hosts.every((h) => HOST.test(h)) ? hosts : undefined;
};
const SCOPE = /^[\x21\x23-\x5b\x5d-\x7e]+$/;

export const openClientSettings = {
  CIMD: {
    doc: 'Accept an https URL as client_id and read the client from the metadata document it serves (draft-ietf-oauth-client-id-metadata-document), as MCP clients expect; such clients get only OPEN_CLIENT_SCOPES and OPEN_CLIENT_RESOURCES, and the consent page names their host (docs/agents.md).',
    expects: 'on or off',
    parse: oneOf('on', 'off'),
    fallback: 'on' as 'on' | 'off',
  },
  CIMD_ALLOWED_HOSTS: {
    doc: 'Hosts whose metadata documents are accepted (comma-separated; `*.example.com` covers its subdomains). Empty: any host that resolves only to public addresses.',
    expects: 'a comma-separated list of host names, optionally starting with *.',
    parse: hostList,
    fallback: [] as string[],
    docDefault: '(any)',
  },
  CIMD_DENIED_HOSTS: {
    doc: 'Hosts whose metadata documents are refused, even when CIMD_ALLOWED_HOSTS would allow them (comma-separated; `*.example.com` covers its subdomains).',
    expects: 'a comma-separated list of host names, optionally starting with *.',
    parse: hostList,
    fallback: [] as string[],
    docDefault: '(none)',
  },
  CIMD_FETCH_TIMEOUT: {
    doc: 'Milliseconds a fetch of a client metadata document may take in all, from name resolution to the last byte.',
    expects: 'an integer number of milliseconds between 100 and 30000',
    parse: int(100, 30_000),
    fallback: 3_000,
  },
  CIMD_MAX_BYTES: {
    doc: 'Largest client metadata document accepted, in bytes; a larger one is refused while it downloads.',
    expects: 'an integer number of bytes between 1024 and 65536',
    parse: int(1024, 65_536),
    fallback: 5_120,
  },
  CIMD_CACHE_MIN: seconds('Shortest time a fetched metadata document (or a refusal) is kept, whatever its Cache-Control says.', 60, 0, 3_600),
  CIMD_CACHE_MAX: seconds(
    'Longest time a fetched metadata document is kept (its Cache-Control max-age is honoured between CIMD_CACHE_MIN and this).',
    3_600,
    60,
    86_400,
  ),
  CIMD_CACHE_SIZE: {
    doc: 'How many metadata documents an instance keeps in memory; the least recently used goes first.',
    expects: 'an integer between 1 and 100000',
    parse: int(1, 100_000),
    fallback: 1_000,
  },
  // A storage budget (docs/rate-limits.md): it bounds rows, so RATE_LIMIT_ENABLED does not turn it off.
  CIMD_MAX_CLIENTS_PER_HOST: {
    doc: 'Client rows one host may have from metadata documents (one per document URL); a further URL of that host is refused, and nothing written, until one of them is purged as unused. RATE_LIMIT_ENABLED=false does not turn it off.',
    expects: 'an integer between 1 and 100000',
    parse: int(1, 100_000),
    fallback: 10,
  },
  REGISTRATION: {
    doc: '`token`: POST /register needs an initial access token. `open`: anyone may register a public client (auth method none) within OPEN_CLIENT_SCOPES and OPEN_CLIENT_RESOURCES, RATE_LIMIT_OPEN_REGISTRATIONS per address; a token still registers under its own policy.',
    expects: 'token or open',
    parse: oneOf('token', 'open'),
    fallback: 'token' as 'token' | 'open',
  },
  OPEN_CLIENT_SCOPES: {
    doc: 'The scopes a metadata-document or self-registered client may hold (space- or comma-separated); operator-only scopes are never granted to them.',
    expects: 'a space- or comma-separated list of scopes',
    parse: (raw: string) => {
      const scopes = [...new Set(raw.split(/[\s,]+/).filter(Boolean))];
      return scopes.every((s) => SCOPE.test(s)) ? scopes : undefined;
    },
    fallback: ['openid', 'profile', 'email', 'offline_access'],
    docDefault: 'openid profile email offline_access',
  },
  OPEN_CLIENT_RESOURCES: {
    doc: 'The resource servers (identifiers, comma-separated) a metadata-document or self-registered client may name with `resource` (RFC 8707). Empty: none.',
    expects: 'a comma-separated list of absolute URIs',
    parse: (raw: string) => {
      const uris = list(raw);
      return uris.every((u) => URL.canParse(u) && !u.includes('#')) ? uris : undefined;
    },
    fallback: [] as string[],
    docDefault: '(none)',
  },
  OPEN_CLIENT_UNUSED_TTL: seconds(
    'A self-registered or metadata-document client with no live grant is deleted this many seconds after it was registered or last used (an authorization or token request; reading its document again does not count).',
    2_592_000,
    86_400,
    31_536_000,
  ),
} satisfies Record<string, Setting<unknown>>;
