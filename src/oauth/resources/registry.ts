// The registered resource servers as every request sees them: one in-process snapshot per app, re-read
// after CLIENT_CACHE_TTL seconds (the freshness of client registrations), at once after a change made
// through this instance (forget()). Concurrent misses share one read; the snapshot is bounded
// (MAX_RESOURCE_SERVERS). docs/resource-servers.md
import type { Clock } from '../../clock.js';
import type { ResourceServer, ResourceServersRepository } from '../../storage/repositories/resource-servers-repository.js';
import { isOidcScope, OIDC_SCOPES, oidcScopeDescriptions } from '../../scopes.js';
import { freshSnapshot } from '../fresh-snapshot.js';

export const MAX_RESOURCE_SERVERS = 1_000;

export interface ResourceCatalogue {
  readonly servers: readonly ResourceServer[];
  find(identifier: string): ResourceServer | undefined;
  /** The resource server a (non-OIDC) scope belongs to. */
  ownerOf(scope: string): ResourceServer | undefined;
  /** An OIDC scope or a registered one. */
  isKnown(scope: string): boolean;
  /** Operator-only scopes: granted by `gatehouse clients create` only, by client_credentials only. */
  isOperatorOnly(scope: string): boolean;
  description(scope: string): string | undefined;
  /** OIDC scopes plus every registered scope that is not operator-only (discovery, suggestions). */
  publicScopes(): string[];
}

export interface ResourceRegistry {
  catalogue(): Promise<ResourceCatalogue>;
  /** Drops the snapshot (a resource server was just changed here). */
  forget(): void;
}

export function resourceCatalogue(servers: readonly ResourceServer[]): ResourceCatalogue {
  const byIdentifier = new Map(servers.map((s) => [s.identifier, s]));
  const owners = new Map<string, ResourceServer>();
  const descriptions = new Map<string, string>();
  for (const server of servers) {
    for (const scope of server.scopes) {
      owners.set(scope.name, server);
      descriptions.set(scope.name, scope.description);
    }
  }
  return {
    servers,
    find: (identifier) => byIdentifier.get(identifier),
    ownerOf: (scope) => owners.get(scope),
    isKnown: (scope) => isOidcScope(scope) || owners.has(scope),
    isOperatorOnly: (scope) => owners.get(scope)?.operatorOnly === true,
    description: (scope) => (isOidcScope(scope) ? oidcScopeDescriptions[scope] : descriptions.get(scope)),
    publicScopes: () => [...OIDC_SCOPES, ...servers.filter((s) => !s.operatorOnly).flatMap((s) => s.scopes.map((x) => x.name))],
  };
}

export function resourceRegistry(repository: Pick<ResourceServersRepository, 'list'>, clock: Clock, ttlSeconds: number): ResourceRegistry {
  const snapshot = freshSnapshot(async () => resourceCatalogue(await repository.list(MAX_RESOURCE_SERVERS)), clock, ttlSeconds);
  return { catalogue: () => snapshot.get(), forget: () => snapshot.forget() };
}
