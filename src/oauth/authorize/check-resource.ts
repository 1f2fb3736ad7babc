// RFC 8707 2: `resource` (repeatable) names the resource servers the grant is for. Each must be an
// absolute URI without a fragment and a registered resource server (else invalid_target); operator-only
// ones are never granted to a user. When resources are named, every API scope must belong to one of them.
import { OAuthError } from '../../http/errors.js';
import type { Client } from '../../storage/repositories/clients-repository.js';
import type { ResourceCatalogue } from '../resources/registry.js';
import { AUTHORIZATION_PARAMETERS } from './parameters.js';

/** How many resources one authorization request may name. */
export const MAX_RESOURCES = 5;

/** The `resource` values of the raw request (query or form), which may repeat. */
function resourceValues(source: unknown): string[] {
  const raw = source && typeof source === 'object' ? (source as Record<string, unknown>).resource : undefined;
  const list = (Array.isArray(raw) ? raw : [raw]).filter((v) => v !== undefined && v !== '');
  if (list.some((v) => typeof v !== 'string')) throw new OAuthError('invalid_request', 'resource must be a string.');
  return [...new Set(list as string[])];
}

function isAbsoluteWithoutFragment(value: string): boolean {
  try {
    return !new URL(value).hash && !value.includes('#');
  } catch {
    return false;
  }
}

export function checkResources(source: unknown, scope: readonly string[], catalogue: ResourceCatalogue, client: Pick<Client, 'resources'>): string[] {
  const resources = resourceValues(source);
  if (resources.length > MAX_RESOURCES) throw new OAuthError('invalid_request', `At most ${MAX_RESOURCES} resource parameters are accepted.`);
  for (const resource of resources) {
    if (resource.length > AUTHORIZATION_PARAMETERS.resource)
      throw new OAuthError('invalid_request', `resource is longer than ${AUTHORIZATION_PARAMETERS.resource} characters.`);
    if (!isAbsoluteWithoutFragment(resource)) throw new OAuthError('invalid_target', 'resource must be an absolute URI without a fragment.');
    const server = catalogue.find(resource);
    if (!server || server.operatorOnly) throw new OAuthError('invalid_target', 'The resource is not a registered resource server.');
    // A client nobody registered by hand may name only OPEN_CLIENT_RESOURCES (docs/agents.md).
    if (client.resources && !client.resources.includes(resource)) throw new OAuthError('invalid_target', 'The resource is not allowed for this client.');
  }
  if (resources.length > 0) {
    const outside = scope.find((s) => {
      const owner = catalogue.ownerOf(s);
      return owner !== undefined && !resources.includes(owner.identifier);
    });
    if (outside !== undefined) throw new OAuthError('invalid_scope', `The scope ${outside} belongs to a resource server that was not requested.`);
  }
  return resources;
}
