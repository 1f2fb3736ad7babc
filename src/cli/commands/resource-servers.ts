// `gatehouse resource-servers create|list|delete`: the APIs Gatehouse issues access tokens for
// (docs/resource-servers.md). Each gets its own confidential client, used only to call /introspect: its
// secret is printed once and stored as a hash, exactly like a client secret (it is one). The rules are the
// service's (src/admin-services/resource-servers-service.ts), shared with /admin/v1 and `gatehouse apply`.
import { parseArgs } from 'node:util';
import type { CliDeps } from '../deps.js';
import { MAX_RESOURCE_SERVERS } from '../../oauth/resources/registry.js';
import type { ResourceScope } from '../../storage/repositories/resource-servers-repository.js';
import {
  AdminRuleError,
  cliActor,
  coreAuditSink,
  createResourceServerRecord,
  deleteResourceServerRecord,
  findResourceServerRecord,
  replaceResourceServerRecord,
  resourceServerServiceDeps,
  resourceServerView,
} from '../../admin-services/index.js';
import { UsageError, type Command } from '../command.js';
import { protectedResourceMetadataUrl } from '../../resource-server/protected-resource-metadata.js';
import { parseClaimMapping, withClaimMappings } from '../../admin-services/scope-claims.js';

// The service's errors name API members; the CLI names its flags.
const FLAG_OF: Record<string, string> = {
  identifier: '--identifier',
  name: '--name',
  scopes: '--scope:',
  access_token_ttl: '--access-token-ttl',
  token_exchange_clients: '--token-exchange-clients',
  routes: '--route:',
};

/** `--token-exchange-clients ID,ID` (RFC 8693: who may exchange into it); an empty value clears the list. */
const clientList = (value: string | undefined): string[] | undefined =>
  value === undefined
    ? undefined
    : value
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean);

/** Runs a resource-server service call, turning its rule errors into usage errors in the CLI's words. */
async function asUsage<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (!(error instanceof AdminRuleError)) throw error;
    const flag = error.field !== undefined ? FLAG_OF[error.field] : undefined;
    if (flag) throw new UsageError(`${flag} ${error.message}`);
    throw new UsageError(error.code === 'conflict' && !error.message.includes('built in') ? `${error.message} (see \`resource-servers list\`)` : error.message);
  }
}

/** "name=Description words name2=Description2": a word with "=" starts the next scope (the service checks them). */
function parseScopeDefinitions(values: readonly string[] | undefined): ResourceScope[] {
  const scopes: ResourceScope[] = [];
  for (const word of (values ?? []).join(' ').split(/\s+/).filter(Boolean)) {
    const at = word.indexOf('=');
    if (at > 0) scopes.push({ name: word.slice(0, at), description: word.slice(at + 1), claims: {} });
    else if (scopes.length > 0) scopes[scopes.length - 1]!.description += ` ${word}`;
    else throw new UsageError(`--scope: expected name=Description, got ${JSON.stringify(word.slice(0, 64))}`);
  }
  if (scopes.length === 0) throw new UsageError('--scope is required: "name=Description name2=Description2"');
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

const scopeView = (x: ResourceScope) => ({ name: x.name, description: x.description, ...(Object.keys(x.claims).length > 0 ? { claims: x.claims } : {}) });

export const resourceServersCreateCommand: Command = {
  name: 'resource-servers create',
  usage:
    'resource-servers create --identifier URI --name N --scope "name=Description name2=Description2" [--claim SCOPE@ATTRIBUTE=access_token,id_token]... [--access-token-ttl S] [--no-offline-access] [--route "GET /notes*=notes:read"]... [--token-exchange-clients CLIENT_ID,...] (RFC 8693: the clients that may exchange a user token into it)',
  async run(args, core) {
    const { values } = parseArgs({
      args,
      options: {
        identifier: { type: 'string' },
        name: { type: 'string' },
        scope: { type: 'string', multiple: true },
        claim: { type: 'string', multiple: true },
        'access-token-ttl': { type: 'string' },
        'no-offline-access': { type: 'boolean' },
        'token-exchange-clients': { type: 'string' },
        route: { type: 'string', multiple: true },
      },
      strict: true,
    });
    if (!values.identifier) throw new UsageError('--identifier is required (an absolute URI, the aud of its access tokens)');
    const ttl = values['access-token-ttl'];
    const input = {
      name: values.name ?? '',
      scopes: scopesWithClaims(parseScopeDefinitions(values.scope), values.claim),
      accessTokenTtl: ttl === undefined ? null : Number(ttl),
      offlineAccess: !values['no-offline-access'],
      tokenExchangeClients: clientList(values['token-exchange-clients']),
      ...(values.route ? { routes: values.route } : {}),
    };
    const { server, secret } = await asUsage(() =>
      createResourceServerRecord(resourceServerServiceDeps(core, coreAuditSink(core)), values.identifier!, input, { actor: cliActor() }),
    );
    return {
      identifier: server.identifier,
      name: server.name,
      scopes: server.scopes.map(scopeView),
      access_token_ttl: server.accessTokenTtl,
      offline_access: server.offlineAccess,
      ...(server.routes && server.routes.length > 0 ? { routes: server.routes } : {}),
      client_id: server.clientId,
      client_secret: secret,
      token_exchange_clients: server.tokenExchangeClients,
      resource_metadata: protectedResourceMetadataUrl(server.identifier, core.config.ISSUER),
    };
  },
};

export const resourceServersUpdateCommand: Command = {
  name: 'resource-servers update',
  usage: 'resource-servers update IDENTIFIER --token-exchange-clients CLIENT_ID,... (RFC 8693: who may exchange a user token into it; "" for nobody)',
  async run(args, core: CliDeps) {
    const { values, positionals } = parseArgs({ args, options: { 'token-exchange-clients': { type: 'string' } }, strict: true, allowPositionals: true });
    if (positionals.length !== 1) throw new UsageError('usage: gatehouse resource-servers update IDENTIFIER --token-exchange-clients CLIENT_ID,...');
    const list = clientList(values['token-exchange-clients']);
    if (list === undefined) throw new UsageError('--token-exchange-clients is required (a comma-separated list of client ids; "" for nobody)');
    const deps = resourceServerServiceDeps(core, coreAuditSink(core));
    const server = await asUsage(async () => {
      const current = await findResourceServerRecord(deps, positionals[0]!);
      return replaceResourceServerRecord(
        deps,
        current.identifier,
        {
          name: current.name,
          scopes: current.scopes,
          accessTokenTtl: current.accessTokenTtl,
          offlineAccess: current.offlineAccess,
          tokenExchangeClients: list,
        },
        current.version,
        { actor: cliActor() },
      );
    });
    return resourceServerView(server);
  },
};

export const resourceServersListCommand: Command = {
  name: 'resource-servers list',
  usage: 'resource-servers list',
  async run(args, core) {
    parseArgs({ args, options: {}, strict: true });
    return {
      resource_servers: (await core.store.resourceServers.list(MAX_RESOURCE_SERVERS)).map((s) => ({
        ...resourceServerView(s),
        resource_metadata: protectedResourceMetadataUrl(s.identifier, core.config.ISSUER),
      })),
    };
  },
};

export const resourceServersDeleteCommand: Command = {
  name: 'resource-servers delete',
  usage: 'resource-servers delete IDENTIFIER',
  async run(args, core: CliDeps) {
    const { positionals } = parseArgs({ args, options: {}, strict: true, allowPositionals: true });
    if (positionals.length !== 1) throw new UsageError('usage: gatehouse resource-servers delete IDENTIFIER');
    const target = positionals[0]!;
    await asUsage(() => deleteResourceServerRecord(resourceServerServiceDeps(core, coreAuditSink(core)), target, undefined, { actor: cliActor() }));
    return { deleted: target };
  },
};
