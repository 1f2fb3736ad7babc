// `gatehouse resource-servers create|list|delete`: the APIs Gatehouse issues access tokens for
// (docs/resource-servers.md). Each gets its own confidential client, used only to call /introspect: its
// secret is printed once and stored as a hash, exactly like a client secret (it is one).
import { parseArgs } from 'node:util';
import type { Core } from '../../core.js';
import { createClient } from '../../oauth/clients/create-client.js';
import { isOidcScope } from '../../scopes.js';
import { builtInResourceServers } from '../../startup/built-in-resource-servers.js';
import { clientsRepository } from '../../storage/clients-repository.js';
import { MAX_RESOURCE_SERVERS } from '../../oauth/resources/registry.js';
import { resourceServersRepository, type ResourceServer, type ResourceScope } from '../../storage/resource-servers-repository.js';
import { UsageError, type Command } from '../command.js';
import { AdminRuleError } from '../../admin-services/rule-error.js';
import { parseClaimMapping, withClaimMappings } from '../../admin-services/scope-claims.js';

/** The longest identifier /authorize accepts as a `resource` value. */
const MAX_IDENTIFIER_LENGTH = 512;
const MAX_SCOPES = 100;
const MAX_DESCRIPTION_LENGTH = 200;
/** RFC 6749 3.3 scope-token, restricted to the characters people use for API scopes. */
const SCOPE_NAME = /^[A-Za-z0-9:._/-]{1,64}$/;

/** RFC 8707 2: an absolute URI without a fragment; https, or http on a loopback host for development. */
function identifier(value: string | undefined): string {
  if (!value) throw new UsageError('--identifier is required (an absolute URI, the aud of its access tokens)');
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new UsageError('--identifier must be an absolute URI');
  }
  if (value.length > MAX_IDENTIFIER_LENGTH) throw new UsageError(`--identifier must have at most ${MAX_IDENTIFIER_LENGTH} characters`);
  if (value.includes('#')) throw new UsageError('--identifier must not have a fragment (RFC 8707 2)');
  const loopback = ['localhost', '127.0.0.1', '[::1]'].includes(url.hostname);
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && loopback)) throw new UsageError('--identifier must be https (http only on a loopback host)');
  return value;
}

/** "name=Description words name2=Description2": a word with "=" starts the next scope. */
export function parseScopeDefinitions(values: readonly string[] | undefined): ResourceScope[] {
  const scopes: ResourceScope[] = [];
  for (const word of (values ?? []).join(' ').split(/\s+/).filter(Boolean)) {
    const at = word.indexOf('=');
    if (at > 0) scopes.push({ name: word.slice(0, at), description: word.slice(at + 1), claims: {} });
    else if (scopes.length > 0) scopes[scopes.length - 1]!.description += ` ${word}`;
    else throw new UsageError(`--scope: expected name=Description, got ${JSON.stringify(word.slice(0, 64))}`);
  }
  if (scopes.length === 0) throw new UsageError('--scope is required: "name=Description name2=Description2"');
  if (scopes.length > MAX_SCOPES) throw new UsageError(`--scope: at most ${MAX_SCOPES} scopes`);
  const seen = new Set<string>();
  for (const s of scopes) {
    if (!SCOPE_NAME.test(s.name)) throw new UsageError(`--scope: ${JSON.stringify(s.name.slice(0, 64))} is not a scope name (letters, digits and : . _ / -, at most 64)`);
    if (isOidcScope(s.name)) throw new UsageError(`--scope: ${s.name} is an OpenID Connect scope`);
    if (seen.has(s.name)) throw new UsageError(`--scope: ${s.name} is listed twice`);
    seen.add(s.name);
    s.description = s.description.trim();
    if (s.description === '' || s.description.length > MAX_DESCRIPTION_LENGTH) throw new UsageError(`--scope: ${s.name} needs a description of 1-${MAX_DESCRIPTION_LENGTH} characters (shown on the consent page)`);
  }
  return scopes;
}

/** `--claim SCOPE@ATTRIBUTE=access_token,id_token` (repeatable): the attributes each scope releases. */
function scopesWithClaims(scopes: ResourceScope[], claims: readonly string[] | undefined): ResourceScope[] {
  try {
    return withClaimMappings(scopes, (claims ?? []).map(parseClaimMapping));
  } catch (error) {
    if (error instanceof AdminRuleError) throw new UsageError(`--claim: ${error.message}`);
    throw error;
  }
}

function accessTokenTtl(raw: string | undefined, ceiling: number): number | null {
  if (raw === undefined) return null;
  const value = Number(raw);
  if (!Number.isSafeInteger(value) || value < 30 || value > ceiling) {
    throw new UsageError(`--access-token-ttl must be a whole number of seconds between 30 and ${ceiling} (ACCESS_TOKEN_TTL, the server-wide ceiling)`);
  }
  return value;
}

const scopeView = (x: ResourceScope) => ({ name: x.name, description: x.description, ...(Object.keys(x.claims).length > 0 ? { claims: x.claims } : {}) });

const view = (s: ResourceServer) => ({
  identifier: s.identifier,
  name: s.name,
  scopes: s.scopes.map(scopeView),
  access_token_ttl: s.accessTokenTtl,
  offline_access: s.offlineAccess,
  operator_only: s.operatorOnly,
  ...(s.clientId ? { client_id: s.clientId } : {}),
});

export const resourceServersCreateCommand: Command = {
  name: 'resource-servers create',
  usage: 'resource-servers create --identifier URI --name N --scope "name=Description name2=Description2" [--claim SCOPE@ATTRIBUTE=access_token,id_token]... [--access-token-ttl S] [--no-offline-access]',
  async run(args, core) {
    const { values } = parseArgs({
      args,
      options: { identifier: { type: 'string' }, name: { type: 'string' }, scope: { type: 'string', multiple: true }, claim: { type: 'string', multiple: true }, 'access-token-ttl': { type: 'string' }, 'no-offline-access': { type: 'boolean' } },
      strict: true,
    });
    const id = identifier(values.identifier);
    const name = values.name?.trim();
    if (!name || name.length > 200) throw new UsageError('--name is required (at most 200 characters)');
    const scopes = scopesWithClaims(parseScopeDefinitions(values.scope), values.claim);
    const ttl = accessTokenTtl(values['access-token-ttl'], core.config.ACCESS_TOKEN_TTL);
    const clients = clientsRepository(core.db, core.clock);
    // Its introspection credentials: a confidential client that may use no grant at all.
    const { client, secret } = await createClient(clients, {
      name: `${name} (resource server)`,
      type: 'confidential',
      authMethod: 'client_secret_basic',
      redirectUris: [],
      postLogoutRedirectUris: [],
      grantTypes: [],
      scopes: [],
      jwks: null,
      jwksUri: null,
      idTokenSignedResponseAlg: 'RS256',
    }, { skipConsent: false });
    const server = { identifier: id, name, accessTokenTtl: ttl, offlineAccess: !values['no-offline-access'], operatorOnly: false, clientId: client.id, scopes };
    if (!(await resourceServersRepository(core.db).create(server))) {
      await clients.delete(client.id);
      throw new UsageError(`${id} is already registered, or one of its scope names belongs to another resource server (see \`resource-servers list\`)`);
    }
    core.resources.forget();
    return { identifier: id, name, scopes: scopes.map(scopeView), access_token_ttl: ttl, offline_access: server.offlineAccess, client_id: client.id, client_secret: secret };
  },
};

export const resourceServersListCommand: Command = {
  name: 'resource-servers list',
  usage: 'resource-servers list',
  async run(args, core) {
    parseArgs({ args, options: {}, strict: true });
    return { resource_servers: (await resourceServersRepository(core.db).list(MAX_RESOURCE_SERVERS)).map(view) };
  },
};

export const resourceServersDeleteCommand: Command = {
  name: 'resource-servers delete',
  usage: 'resource-servers delete IDENTIFIER',
  async run(args, core: Core) {
    const { positionals } = parseArgs({ args, options: {}, strict: true, allowPositionals: true });
    if (positionals.length !== 1) throw new UsageError('usage: gatehouse resource-servers delete IDENTIFIER');
    const target = positionals[0]!;
    if (builtInResourceServers(core.config).some((s) => s.identifier === target)) throw new UsageError(`${target} is built in and cannot be deleted`);
    const repository = resourceServersRepository(core.db);
    const existing = (await repository.list(MAX_RESOURCE_SERVERS)).find((s) => s.identifier === target);
    if (!existing || !(await repository.delete(target))) throw new UsageError(`no resource server ${JSON.stringify(target.slice(0, 200))}`);
    core.resources.forget();
    if (existing.clientId) core.clients.forget(existing.clientId);
    return { deleted: target };
  },
};
