// RFC 8707 at /token: every access token has exactly one audience and carries only the scopes of that
// resource server (plus the OIDC scopes, which are the authorization server's own: /userinfo). A grant may
// span several resource servers; each token request picks one:
//   1. `resource` when sent (unknown → invalid_target; not part of the grant → invalid_target);
//   2. the resource bound at /authorize when exactly one was named there;
//   3. the one resource server all of the grant's API scopes belong to;
//   4. the client's default resource (`clients create --default-resource`), when the scopes span several
//      resource servers and it is one of them — otherwise invalid_scope, saying which resources;
//   5. without API scopes: the client's default resource, else the deployment's API_AUDIENCE.
// docs/resource-servers.md
import { OAuthError } from '../../http/errors.js';
import type { ResourceServer } from '../../storage/repositories/resource-servers-repository.js';
import type { ResourceCatalogue } from './registry.js';

export interface AudienceRequest {
  catalogue: ResourceCatalogue;
  /** The scope the grant (or client, for client_credentials) allows for this response. */
  scope: readonly string[];
  /** The `resource` parameter of the token request. */
  requested: string | undefined;
  /** The single resource named at /authorize, if any. */
  bound?: string | null;
  defaultResource: string | null;
  fallbackAudience: string;
  /** Refresh: resource servers that do not allow offline access are out of reach. */
  offline?: boolean;
}

export interface Audience {
  audience: string;
  /** The OIDC scopes of the request plus the API scopes of `audience`. */
  scope: string[];
  server: ResourceServer | undefined;
}

const MAX_NAMED = 5;
const names = (servers: readonly ResourceServer[]) =>
  servers
    .slice(0, MAX_NAMED)
    .map((s) => s.identifier)
    .join(', ');

export function chooseAudience(input: AudienceRequest): Audience {
  const { catalogue, scope } = input;
  const owners = new Map<string, ResourceServer>();
  for (const s of scope) {
    const owner = catalogue.ownerOf(s);
    if (owner && (!input.offline || owner.offlineAccess)) owners.set(owner.identifier, owner);
  }
  const pick = (identifier: string): Audience => {
    const server = catalogue.find(identifier);
    const ownScope = scope.filter((s) => {
      const owner = catalogue.ownerOf(s);
      return owner === undefined ? catalogue.isKnown(s) : owner.identifier === identifier;
    });
    return { audience: identifier, scope: ownScope, server };
  };
  if (input.requested !== undefined) {
    const server = catalogue.find(input.requested);
    if (!server) throw new OAuthError('invalid_target', 'The resource is not a registered resource server.');
    if (input.offline && !server.offlineAccess) throw new OAuthError('invalid_target', 'The resource does not allow offline access (refresh tokens).');
    const inGrant = owners.has(server.identifier) || input.bound === server.identifier || (owners.size === 0 && input.defaultResource === server.identifier);
    if (!inGrant) throw new OAuthError('invalid_target', 'The resource is not part of this authorization.');
    return pick(server.identifier);
  }
  if (input.bound) {
    if (input.offline && catalogue.find(input.bound)?.offlineAccess === false)
      throw new OAuthError('invalid_target', 'The resource does not allow offline access (refresh tokens).');
    return pick(input.bound);
  }
  const servers = [...owners.values()];
  if (servers.length === 1) return pick(servers[0]!.identifier);
  if (servers.length > 1) {
    if (input.defaultResource !== null && owners.has(input.defaultResource)) return pick(input.defaultResource);
    throw new OAuthError(
      'invalid_scope',
      `The scopes belong to several resource servers (${names(servers)}); name one with the resource parameter (RFC 8707).`,
    );
  }
  const apiScopesLeft = scope.some((s) => catalogue.ownerOf(s) !== undefined);
  if (apiScopesLeft) throw new OAuthError('invalid_target', 'No resource of this authorization allows offline access (refresh tokens).');
  return pick(input.defaultResource ?? input.fallbackAudience);
}

/** The access-token lifetime for an audience: the resource server's own, never above the server-wide one. */
export const accessTokenLifetime = (server: ResourceServer | undefined, serverWide: number): number =>
  Math.min(server?.accessTokenTtl ?? serverWide, serverWide);

/**
 * Whether chooseAudience could refuse a refresh request (offline) without `resource` for some grant of this
 * client — true unless the catalogue rules it out for every grant at once. It refuses a grant bound at
 * /authorize to a resource server without offline access (any server but an operator-only one can be bound,
 * whatever the client's scopes), a granted API scope of such a server, and API scopes of several servers. The
 * scope a refresh issues is always within the client's current scopes, so "at most one owner among the
 * client's scopes, and it allows offline access" holds for whatever the grant turns out to be.
 */
export function offlineAudienceMayRefuse(catalogue: ResourceCatalogue, clientScopes: readonly string[]): boolean {
  if (catalogue.servers.some((s) => !s.offlineAccess && !s.operatorOnly)) return true;
  const owners = new Set<ResourceServer>();
  for (const scope of clientScopes) {
    const owner = catalogue.ownerOf(scope);
    if (owner) owners.add(owner);
  }
  return owners.size > 1 || [...owners].some((s) => !s.offlineAccess);
}
