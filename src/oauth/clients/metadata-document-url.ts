// Which client_ids are Client ID Metadata Document URLs, and whether the operator lets their host in
// (draft-ietf-oauth-client-id-metadata-document 3): an https URL with a path, in canonical form (so without
// dot segments, which the URL parser would remove), without user information or fragment. A query is
// refused too (the draft discourages it; a canonical URL without one is easier to reason about). Where
// the document may be fetched from is then the outbound policy's decision (outbound-policy.ts).
import type { Config } from '../../config.js';

export type HostListsConfig = Pick<Config, 'CIMD_ALLOWED_HOSTS' | 'CIMD_DENIED_HOSTS'>;

/** An https URL: the caller means a metadata document (a registered id is never one: they are random). */
export const looksLikeMetadataDocumentUrl = (id: string): boolean => id.startsWith('https://');

/** Why this URL cannot be a metadata document's client_id, or undefined. */
export function metadataDocumentUrlProblem(id: string): string | undefined {
  if (!URL.canParse(id)) return 'is not a URL';
  const url = new URL(id);
  if (url.protocol !== 'https:') return 'must use https';
  if (url.username || url.password) return 'must not contain user information';
  if (id.includes('#')) return 'must not contain a fragment';
  if (url.search || id.includes('?')) return 'must not contain a query';
  if (url.pathname === '/' || url.pathname === '') return 'must contain a path';
  if (url.href !== id) return 'must be in canonical form (no dot segments, lower-case host, no default port)';
  return undefined;
}

const matches = (host: string, pattern: string) => (pattern.startsWith('*.') ? host.endsWith(pattern.slice(1)) : host === pattern);

/** Whether CIMD_DENIED_HOSTS / CIMD_ALLOWED_HOSTS let this URL's host in. */
export function hostPermitted(id: string, config: HostListsConfig): boolean {
  const host = new URL(id).hostname.toLowerCase();
  if (config.CIMD_DENIED_HOSTS.some((p) => matches(host, p))) return false;
  return config.CIMD_ALLOWED_HOSTS.length === 0 || config.CIMD_ALLOWED_HOSTS.some((p) => matches(host, p));
}

/**
 * RFC 9111 5.2.2: how long the answer may be reused, within [min, max] seconds. no-store and no-cache
 * mean the minimum (the document is still not fetched for every request: that is what the minimum is for).
 */
export function cacheLifetime(cacheControl: string | undefined, min: number, max: number): number {
  const directives = (cacheControl ?? '')
    .toLowerCase()
    .split(',')
    .map((d) => d.trim());
  if (directives.includes('no-store') || directives.includes('no-cache')) return min;
  const maxAge = directives.map((d) => /^max-age=(\d+)$/.exec(d)?.[1]).find((v) => v !== undefined);
  if (maxAge === undefined) return min;
  return Math.min(max, Math.max(min, Number(maxAge)));
}
