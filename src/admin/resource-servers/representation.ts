// A resource server as the admin API shows it, its validators, and PATCH (RFC 7396) applied to its
// writable view.
import { Value } from '@sinclair/typebox/value';
import type { Static } from '@sinclair/typebox';
import { strongEtag, type Validators } from '../../http/conditional.js';
import { mergePatch, type Json } from '../../http/merge-patch.js';
import { validationFailed } from '../../http/validation.js';
import { ProblemError, type FieldError } from '../../http/errors.js';
import type { Config } from '../../config.js';
import type { ResourceServer } from '../../storage/resource-servers-repository.js';
import { isBuiltIn, resourceServerView, type ResourceServerInput } from '../../admin-services/resource-servers-service.js';
import { ResourceServerInputSchema, WRITABLE_FIELDS, type ResourceServerInputBody, type ResourceServerSchema } from './schemas.js';

/** Typed as ResourceServerSchema, which serialises it: the service's view (shared with the CLI) is an untyped record. */
export const representResourceServer = (config: Pick<Config, 'ISSUER' | 'API_AUDIENCE'>) => (server: ResourceServer) =>
  ({
    ...resourceServerView(server),
    built_in: isBuiltIn(config, server.identifier),
    updated_at: server.updatedAt.toISOString(),
  }) as Static<typeof ResourceServerSchema>;

/** Strong: the version changes with every write. */
export const resourceServerValidators = (server: ResourceServer): Validators => ({
  etag: strongEtag('resource-server', server.identifier, server.version),
  lastModified: server.updatedAt,
});

/** The writable members of the current resource server, as a PUT body would carry them (claims are not written here). */
export function writableView(server: ResourceServer): ResourceServerInputBody {
  return {
    name: server.name,
    scopes: server.scopes.map((s) => ({ name: s.name, description: s.description })),
    access_token_ttl: server.accessTokenTtl,
    offline_access: server.offlineAccess,
  };
}

const isObject = (value: unknown): value is Record<string, Json> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** The full document this merge patch produces; a change to a read-only member is 422, a wrong shape 400. */
export function patchedResourceServer(server: ResourceServer, patch: unknown, view: Record<string, unknown>): ResourceServerInputBody {
  if (!isObject(patch)) throw validationFailed([{ field: '', message: 'a merge patch of a resource server must be a JSON object' }]);
  const errors: FieldError[] = Object.keys(patch)
    .filter((field) => !WRITABLE_FIELDS.includes(field) && (!(field in view) || JSON.stringify(patch[field]) !== JSON.stringify(view[field])))
    .map((field) => ({ field, message: field in view ? 'is read-only' : 'is not a resource-server member' }));
  if (errors.length > 0) throw validationFailed(errors);
  const merged = mergePatch(writableView(server) as Json, patch) as Record<string, unknown>;
  const document = Object.fromEntries(WRITABLE_FIELDS.filter((f) => merged[f] !== undefined).map((f) => [f, merged[f]]));
  const typeErrors = [...Value.Errors(ResourceServerInputSchema, document)].map((e) => ({ field: e.path.replace(/^\//, '').replace(/\//g, '.') || 'body', message: e.message }));
  if (typeErrors.length > 0) throw new ProblemError('bad-request', 'The patched resource server does not have the expected shape.', { errors: typeErrors });
  return document as ResourceServerInputBody;
}

/** The service input of a PUT/PATCH/POST document. */
export const resourceServerInput = (body: ResourceServerInputBody): ResourceServerInput => ({
  name: body.name,
  scopes: body.scopes.map((s) => ({ name: s.name, description: s.description, claims: {} })),
  accessTokenTtl: body.access_token_ttl ?? null,
  offlineAccess: body.offline_access ?? true,
});
