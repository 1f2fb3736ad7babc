// RFC 9728 protected-resource metadata for every resource server Gatehouse issues tokens for
// (docs/resource-servers.md, "Protected-resource metadata"): where each one's document lives, what it says,
// and the `resource_metadata` parameter a 401/403 challenge names it with (5.1).
//
// Where (3): the well-known suffix inserted between the identifier's host and its path (and query), a
// terminating slash after the host removed first — https://idp.example/notes → https://idp.example/.well-known/
// oauth-protected-resource/notes. Gatehouse serves that URL for identifiers on its own origin. For an
// identifier on another host the RFC location is that host's to serve; Gatehouse serves a copy at
// {ISSUER}/protected-resource-metadata?resource=<identifier>, for the resource server to publish (or name in
// its own challenges).
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { DPOP_ALGS } from '../tokens/dpop/proof.js';

export const WELL_KNOWN_PROTECTED_RESOURCE = '/.well-known/oauth-protected-resource';
/** The copies of the documents of resource servers on other hosts. */
export const FOREIGN_METADATA_PATH = '/protected-resource-metadata';

/** The URL of the RFC 9728 document of `identifier`, as Gatehouse serves it. */
export function protectedResourceMetadataUrl(identifier: string, issuer: string): string {
  const resource = new URL(identifier);
  const home = new URL(issuer);
  if (resource.origin !== home.origin)
    return `${home.origin}${home.pathname.replace(/\/$/, '')}${FOREIGN_METADATA_PATH}?resource=${encodeURIComponent(identifier)}`;
  const path = resource.pathname === '/' ? '' : resource.pathname;
  return `${resource.origin}${WELL_KNOWN_PROTECTED_RESOURCE}${path}${resource.search}`;
}

/**
 * The identifiers an RFC 9728 3 URL on Gatehouse's own origin may stand for: the path and query after the
 * well-known suffix, appended to the origin (with and without the terminating slash 3 removes).
 */
export function identifiersOfMetadataPath(rest: string, issuer: string): string[] {
  const origin = new URL(issuer).origin;
  if (rest === '' || rest.startsWith('?')) return [`${origin}${rest}`, `${origin}/${rest}`];
  return rest.startsWith('/') ? [`${origin}${rest}`] : [];
}

export interface MetadataSubject {
  identifier: string;
  name: string;
  /** Scopes to advertise; none for an operator-only server (never advertised, like discovery). */
  scopes: readonly string[];
}

/** The document (2): the resource, who issues its tokens, its scopes, and how tokens are presented. */
export function protectedResourceMetadataDocument(subject: MetadataSubject, issuer: string): Record<string, unknown> {
  return {
    resource: subject.identifier,
    authorization_servers: [issuer],
    ...(subject.scopes.length > 0 ? { scopes_supported: [...subject.scopes] } : {}),
    bearer_methods_supported: ['header'],
    dpop_signing_alg_values_supported: [...DPOP_ALGS],
    resource_name: subject.name,
  };
}

/** Public, cacheable, readable from any origin (a browser-based client reads it before it has any token). */
export function sendMetadata(reply: FastifyReply, document: Record<string, unknown> | string): FastifyReply {
  reply.header('cache-control', 'public, max-age=300').header('access-control-allow-origin', '*');
  return reply.type('application/json; charset=utf-8').send(typeof document === 'string' ? document : JSON.stringify(document));
}

/** Adds `resource_metadata` to a Bearer or DPoP challenge, after its own parameters. */
export function withResourceMetadata(challenge: string, url: string): string {
  if (!/^(Bearer|DPoP)(\s|$)/.test(challenge) || challenge.includes('resource_metadata=')) return challenge;
  const parameter = `resource_metadata="${url}"`;
  return /^(Bearer|DPoP)$/.test(challenge) ? `${challenge} ${parameter}` : `${challenge}, ${parameter}`;
}

/** An onSend hook naming the document in every 401 and 403 challenge of the routes it is installed on. */
export function resourceMetadataChallenge(url: string) {
  return async (_request: FastifyRequest, reply: FastifyReply, payload: unknown) => {
    const challenge = reply.getHeader('www-authenticate');
    if ((reply.statusCode === 401 || reply.statusCode === 403) && typeof challenge === 'string') {
      reply.header('www-authenticate', withResourceMetadata(challenge, url));
    }
    return payload;
  };
}

/** Names the document in every 401/403 challenge of the routes of `scope` (an encapsulated plugin of one face). */
export function challengeWithResourceMetadata(scope: FastifyInstance, url: string): void {
  scope.addHook('onSend', resourceMetadataChallenge(url));
}
