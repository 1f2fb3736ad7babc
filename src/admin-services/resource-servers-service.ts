// Resource-server administration, written once for the CLI (`gatehouse resource-servers ...`, `gatehouse
// apply`) and the admin API (/admin/v1/resource-servers): the identifier and scope rules, the introspection
// client each one gets, version-guarded writes (If-Match), the built-ins that cannot go, and one audit event
// per change in the same transaction (docs/resource-servers.md, docs/admin-api.md).
import { parseRoute, RouteSyntaxError } from '@gatehouse/resource-server';
import type { Clock } from '../clock.js';
import type { Config } from '../config.js';
import type { Store } from '../storage/store.js';
import { isOidcScope, userinfoAudience } from '../scopes.js';
import { createClient } from '../oauth/clients/create-client.js';
import type { ClientLookup } from '../oauth/clients/client-cache.js';
import type { ResourceRegistry } from '../oauth/resources/registry.js';
import { builtInResourceServers } from './built-in-resource-servers.js';
import type { ResourceScope, ResourceServer, ScopeClaims } from '../storage/repositories/resource-servers-repository.js';
import { TOKEN_EXCHANGE_GRANT } from '../storage/repositories/clients-repository.js';
import type { AuditEventInput } from '../audit/audit-events.js';
import type { AuditSink } from '../audit/audit-sink.js';
import type { ActingAs } from './clients-service.js';
import { AdminRuleError } from './rule-error.js';
import { checkedScopeClaims } from './scope-claims.js';

export interface ResourceServerServiceDeps {
  store: Store;
  clock: Clock;
  config: Pick<Config, 'ACCESS_TOKEN_TTL' | 'ISSUER' | 'API_AUDIENCE'>;
  /** This instance's client cache: the introspection client appears or goes with its resource server. */
  clients: Pick<ClientLookup, 'forget'>;
  /** This instance's registry snapshot, dropped after every change (others re-read within CLIENT_CACHE_TTL). */
  resources: Pick<ResourceRegistry, 'forget'>;
  audit: AuditSink;
}

/** A scope as a write gives it: without `claims`, a replace keeps the scope's current mapping (a new scope has none). */
export interface ResourceScopeInput {
  name: string;
  description: string;
  claims?: ScopeClaims;
}

export interface ResourceServerInput {
  name: string;
  scopes: ResourceScopeInput[];
  /** Seconds; null: the server-wide ACCESS_TOKEN_TTL. */
  accessTokenTtl: number | null;
  offlineAccess: boolean;
  /**
   * RFC 8693: the clients that may exchange a user's token into this audience (docs/token-exchange.md);
   * left out on a write: the current list is kept (none for a new one).
   */
  tokenExchangeClients?: string[] | undefined;
  /** `METHOD PATH=SCOPES[;acr=…]` rules for `gatehouse protect` and kit users (docs/protect.md); set at creation. */
  routes?: readonly string[];
}

/** The longest identifier /authorize accepts as a `resource` value. */
export const MAX_IDENTIFIER_LENGTH = 512;
const MAX_SCOPES = 100;
const MAX_ROUTES = 200;
const MAX_NAME_LENGTH = 200;
const MAX_DESCRIPTION_LENGTH = 200;
const MIN_TTL = 30;
/** RFC 6749 3.3 scope-token, restricted to the characters people use for API scopes. */
const SCOPE_NAME = /^[A-Za-z0-9:._/-]{1,64}$/;

/** RFC 8707 2: an absolute URI without a fragment; https, or http on a loopback host for development. */
function checkIdentifier(value: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new AdminRuleError('invalid', 'must be an absolute URI', 'identifier');
  }
  if (value.length > MAX_IDENTIFIER_LENGTH) throw new AdminRuleError('invalid', `must have at most ${MAX_IDENTIFIER_LENGTH} characters`, 'identifier');
  if (value.includes('#')) throw new AdminRuleError('invalid', 'must not have a fragment (RFC 8707 2)', 'identifier');
  const loopback = ['localhost', '127.0.0.1', '[::1]'].includes(url.hostname);
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && loopback))
    throw new AdminRuleError('invalid', 'must be https (http only on a loopback host)', 'identifier');
  return value;
}

/**
 * Scope names, descriptions (the consent page shows them) and the claim mappings given; the names'
 * uniqueness across servers is the database's.
 */
function checkScopes(scopes: readonly ResourceScopeInput[]): ResourceScopeInput[] {
  if (scopes.length === 0) throw new AdminRuleError('invalid', 'at least one scope is required', 'scopes');
  if (scopes.length > MAX_SCOPES) throw new AdminRuleError('invalid', `at most ${MAX_SCOPES} scopes`, 'scopes');
  const seen = new Set<string>();
  return scopes.map((s) => {
    const quoted = JSON.stringify(s.name.slice(0, 64));
    if (!SCOPE_NAME.test(s.name)) throw new AdminRuleError('invalid', `${quoted} is not a scope name (letters, digits and : . _ / -, at most 64)`, 'scopes');
    if (isOidcScope(s.name)) throw new AdminRuleError('invalid', `${s.name} is an OpenID Connect scope`, 'scopes');
    if (seen.has(s.name)) throw new AdminRuleError('invalid', `${s.name} is listed twice`, 'scopes');
    seen.add(s.name);
    const description = s.description.trim();
    if (description === '' || description.length > MAX_DESCRIPTION_LENGTH) {
      throw new AdminRuleError('invalid', `${s.name} needs a description of 1-${MAX_DESCRIPTION_LENGTH} characters (shown on the consent page)`, 'scopes');
    }
    return { ...s, description, ...(s.claims ? { claims: checkedScopeClaims(s.name, s.claims, 'scopes') } : {}) };
  });
}

/** Key retention, verifiers' maximum token age and the revocation list are bounded by ACCESS_TOKEN_TTL (docs/resource-servers.md). */
function checkAccessTokenTtl(value: number | null, ceiling: number): number | null {
  if (value === null) return null;
  if (!Number.isSafeInteger(value) || value < MIN_TTL || value > ceiling) {
    throw new AdminRuleError(
      'invalid',
      `must be a whole number of seconds between ${MIN_TTL} and ${ceiling} (ACCESS_TOKEN_TTL, the server-wide ceiling)`,
      'access_token_ttl',
    );
  }
  return value;
}

/**
 * Route rules in the kit's syntax (packages/resource-server-kit/src/routes.ts), each naming only scopes of this
 * resource server: a route demanding another server's scope could never be satisfied by a token of this audience.
 */
function checkRoutes(routes: readonly string[], scopes: readonly ResourceScopeInput[]): string[] {
  if (routes.length > MAX_ROUTES) throw new AdminRuleError('invalid', `at most ${MAX_ROUTES} routes`, 'routes');
  const own = new Set(scopes.map((s) => s.name));
  return routes.map((route) => {
    let rule: ReturnType<typeof parseRoute>;
    try {
      rule = parseRoute(route);
    } catch (error) {
      if (error instanceof RouteSyntaxError) throw new AdminRuleError('invalid', error.message.slice(0, 300), 'routes');
      throw error;
    }
    const foreign = rule.scopes.find((scope) => !own.has(scope));
    if (foreign !== undefined)
      throw new AdminRuleError(
        'invalid',
        `route "${rule.source.slice(0, 100)}" names ${JSON.stringify(foreign.slice(0, 64))}, not a scope of this resource server`,
        'routes',
      );
    return rule.source;
  });
}

function checkInput(input: ResourceServerInput, ceiling: number): ResourceServerInput {
  const name = input.name.trim();
  if (!name || name.length > MAX_NAME_LENGTH) throw new AdminRuleError('invalid', `is required (at most ${MAX_NAME_LENGTH} characters)`, 'name');
  const scopes = checkScopes(input.scopes);
  return {
    name,
    scopes,
    accessTokenTtl: checkAccessTokenTtl(input.accessTokenTtl, ceiling),
    offlineAccess: input.offlineAccess,
    ...(input.routes !== undefined ? { routes: checkRoutes(input.routes, scopes) } : {}),
    ...(input.tokenExchangeClients !== undefined ? { tokenExchangeClients: input.tokenExchangeClients } : {}),
  };
}

const MAX_EXCHANGE_CLIENTS = 50;

/**
 * The clients allowed to exchange into this resource server: each registered for the token-exchange grant
 * (a client that cannot use it is surely a typo), confidential (an exchange authenticates the client).
 */
async function checkExchangeClients(tx: Store, list: readonly string[] | undefined): Promise<string[] | undefined> {
  if (list === undefined) return undefined;
  const unique = [...new Set(list)];
  if (unique.length > MAX_EXCHANGE_CLIENTS) throw new AdminRuleError('invalid', `at most ${MAX_EXCHANGE_CLIENTS} clients`, 'token_exchange_clients');
  const clients = tx.clients;
  for (const id of unique) {
    const client = id.includes('\u0000') ? undefined : await clients.find(id);
    const quoted = JSON.stringify(id.slice(0, 100));
    if (!client) throw new AdminRuleError('invalid', `${quoted} is not a registered client`, 'token_exchange_clients');
    if (!client.grantTypes.includes(TOKEN_EXCHANGE_GRANT))
      throw new AdminRuleError('invalid', `${quoted} is not registered for the grant type ${TOKEN_EXCHANGE_GRANT}`, 'token_exchange_clients');
    if (client.type !== 'confidential')
      throw new AdminRuleError('invalid', `${quoted} is a public client; token exchange needs a confidential one`, 'token_exchange_clients');
  }
  return unique;
}

export const isBuiltIn = (config: Pick<Config, 'ISSUER' | 'API_AUDIENCE'>, identifier: string): boolean =>
  builtInResourceServers(config).some((s) => s.identifier === identifier);

/** The representation both faces show (the introspection client's id, never its secret). */
export function resourceServerView(s: ResourceServer): Record<string, unknown> {
  return {
    identifier: s.identifier,
    name: s.name,
    scopes: s.scopes.map((x) => ({ name: x.name, description: x.description, ...(Object.keys(x.claims).length > 0 ? { claims: x.claims } : {}) })),
    access_token_ttl: s.accessTokenTtl,
    offline_access: s.offlineAccess,
    operator_only: s.operatorOnly,
    ...(s.clientId ? { client_id: s.clientId } : {}),
    token_exchange_clients: [...s.tokenExchangeClients],
    ...(s.routes && s.routes.length > 0 ? { routes: [...s.routes] } : {}),
  };
}

const changeEvent = (type: AuditEventInput['type'], identifier: string, as: ActingAs, changedFields: readonly string[] = []): AuditEventInput => ({
  type,
  actor: as.actor,
  resource: 'resource_server',
  resourceId: identifier,
  changedFields,
  ...(as.traceId ? { traceId: as.traceId } : {}),
});

function changedFields(before: ResourceServer, after: ResourceServer): string[] {
  const a = resourceServerView(before);
  const b = resourceServerView(after);
  return Object.keys(b)
    .filter((k) => JSON.stringify(a[k]) !== JSON.stringify(b[k]))
    .sort();
}

/**
 * Registers a resource server with its introspection credentials: a confidential client that may use no
 * grant at all, whose secret is returned once (or the imported one, when given).
 */
export async function createResourceServerRecord(
  deps: ResourceServerServiceDeps,
  identifier: string,
  input: ResourceServerInput & { importedSecret?: string },
  as: ActingAs,
): Promise<{ server: ResourceServer; secret: string }> {
  const id = checkIdentifier(identifier);
  // /userinfo's audience must mean /userinfo: a resource server under it would receive every openid token.
  if (id === userinfoAudience(deps.config.ISSUER))
    throw new AdminRuleError('invalid', 'is the UserInfo endpoint of this issuer, not a resource server', 'identifier');
  const checked = checkInput(input, deps.config.ACCESS_TOKEN_TTL);
  const created = await deps.store.transaction(async (tx) => {
    const { client, secret } = await createClient(
      tx.clients,
      {
        name: `${checked.name} (resource server)`,
        type: 'confidential',
        authMethod: 'client_secret_basic',
        redirectUris: [],
        postLogoutRedirectUris: [],
        grantTypes: [],
        scopes: [],
        jwks: null,
        jwksUri: null,
        idTokenSignedResponseAlg: 'RS256',
      },
      { skipConsent: false, ...(input.importedSecret !== undefined ? { importedSecret: input.importedSecret } : {}) },
    );
    const repository = tx.resourceServers;
    const scopes = checked.scopes.map((s): ResourceScope => ({ ...s, claims: s.claims ?? {} }));
    const tokenExchangeClients = (await checkExchangeClients(tx, checked.tokenExchangeClients)) ?? [];
    if (!(await repository.create({ identifier: id, ...checked, scopes, tokenExchangeClients, operatorOnly: false, clientId: client.id }))) {
      throw new AdminRuleError('conflict', `${id} is already registered, or one of its scope names belongs to another resource server`);
    }
    const server = (await repository.find(id))!;
    await deps.audit.emit(changeEvent('admin.resource_server.created', id, as, Object.keys(resourceServerView(server)).sort()), { tx });
    return { server, secret: secret! };
  });
  deps.resources.forget();
  return created;
}

export async function findResourceServerRecord(deps: Pick<ResourceServerServiceDeps, 'store'>, identifier: string): Promise<ResourceServer> {
  const server = await deps.store.resourceServers.find(identifier);
  if (!server) throw new AdminRuleError('not-found', `no resource server ${JSON.stringify(identifier.slice(0, 200))}`);
  return server;
}

export function listResourceServerRecords(
  deps: Pick<ResourceServerServiceDeps, 'store'>,
  page: { after?: { createdAt: Date; identifier: string }; limit: number },
): Promise<ResourceServer[]> {
  return deps.store.resourceServers.page(page);
}

/**
 * Replaces a resource server's name, scopes (with their claim mappings, where given), lifetime and offline access, only while it is still at
 * `expectedVersion` (any version when undefined: the CLI's `apply` holds its lock). Built-ins keep the
 * scopes the code declares: the API and the admin face check exactly those.
 */
export async function replaceResourceServerRecord(
  deps: ResourceServerServiceDeps,
  identifier: string,
  input: ResourceServerInput,
  expectedVersion: number | undefined,
  as: ActingAs,
): Promise<ResourceServer> {
  const checked = checkInput(input, deps.config.ACCESS_TOKEN_TTL);
  const updated = await deps.store.transaction(async (tx) => {
    const repository = tx.resourceServers;
    const before = await repository.find(identifier);
    if (!before) throw new AdminRuleError('not-found', `no resource server ${JSON.stringify(identifier.slice(0, 200))}`);
    if (before.operatorOnly && checked.offlineAccess) {
      throw new AdminRuleError('invalid', 'an operator-only resource server never has offline access', 'offline_access');
    }
    if (isBuiltIn(deps.config, identifier) && JSON.stringify(before.scopes.map((s) => s.name)) !== JSON.stringify(checked.scopes.map((s) => s.name))) {
      throw new AdminRuleError(
        'invalid',
        'the scope names of a built-in resource server are the ones its code checks; only their descriptions may change',
        'scopes',
      );
    }
    // A scope given without claims keeps its mapping (PUT/PATCH documents that only rename or describe).
    const scopes = checked.scopes.map((s): ResourceScope => ({ ...s, claims: s.claims ?? before.scopes.find((x) => x.name === s.name)?.claims ?? {} }));
    if (before.operatorOnly && checked.tokenExchangeClients !== undefined && checked.tokenExchangeClients.length > 0) {
      throw new AdminRuleError('invalid', 'an operator-only resource server is never the target of a token exchange', 'token_exchange_clients');
    }
    const tokenExchangeClients = (await checkExchangeClients(tx, checked.tokenExchangeClients)) ?? before.tokenExchangeClients;
    const result = await repository.updateIfVersion(identifier, { ...checked, scopes, tokenExchangeClients }, expectedVersion, new Date(deps.clock.now()));
    if (result === 'missing') throw new AdminRuleError('not-found', `no resource server ${JSON.stringify(identifier.slice(0, 200))}`);
    if (result === 'stale') throw new AdminRuleError('stale', 'the resource server changed since it was read');
    if (result === 'scope-taken') throw new AdminRuleError('conflict', 'one of its scope names belongs to another resource server');
    await deps.audit.emit(changeEvent('admin.resource_server.updated', identifier, as, changedFields(before, result.written)), { tx });
    return result.written;
  });
  deps.resources.forget();
  return updated;
}

/** Deletes a resource server and its introspection client; built-ins never (`conflict`: they are part of this server). */
export async function deleteResourceServerRecord(
  deps: ResourceServerServiceDeps,
  identifier: string,
  expectedVersion: number | undefined,
  as: ActingAs,
): Promise<void> {
  if (isBuiltIn(deps.config, identifier)) throw new AdminRuleError('conflict', `${identifier} is built in and cannot be deleted`);
  const deleted = await deps.store.transaction(async (tx) => {
    const result = await tx.resourceServers.deleteIfVersion(identifier, expectedVersion);
    if (result === 'missing' || result === 'scope-taken')
      throw new AdminRuleError('not-found', `no resource server ${JSON.stringify(identifier.slice(0, 200))}`);
    if (result === 'stale') throw new AdminRuleError('stale', 'the resource server changed since it was read');
    await deps.audit.emit(changeEvent('admin.resource_server.deleted', identifier, as), { tx });
    return result.written;
  });
  deps.resources.forget();
  if (deleted.clientId) deps.clients.forget(deleted.clientId);
}
