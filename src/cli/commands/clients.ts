// `gatehouse clients create|list|show|update|delete|disable`. Flags map onto RFC 7591 metadata and go through the
// same validation as POST /register.
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { TOKEN_ENDPOINT_AUTH_METHODS } from '../../storage/repositories/clients-repository.js';
import { ClientMetadataError, type ClientMetadataInput } from '../../oauth/clients/metadata.js';
import { clientMetadataView } from '../../oauth/clients/create-client.js';
import { SIGNING_ALGS } from '../../crypto/keys.js';
import { oneOf } from '../flag-values.js';
import type { CliDeps } from '../deps.js';
import {
  AdminRuleError,
  checkedOrigins,
  clientServiceDeps,
  cliActor,
  coreAuditSink,
  createClientRecord,
  endClientRecord,
  findClientRecord,
  setTokenExchangeImpersonation,
} from '../../admin-services/index.js';
import { UsageError, type Command } from '../command.js';
import { tryIt } from './try-it.js';

// The service's errors name API members; the CLI names its flags.
const FLAG_OF: Record<string, string> = {
  allowed_origins: '--allowed-origin',
  client_secret: '--secret',
  client_id: '--client-id',
  token_exchange_impersonation: '--token-exchange-impersonation',
};

/** Runs a client service call, turning its rule errors into usage errors in the CLI's words. */
async function asUsage<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof ClientMetadataError) throw new UsageError(`${error.error}: ${error.message}`);
    if (error instanceof AdminRuleError) {
      const flag = error.field !== undefined ? FLAG_OF[error.field] : undefined;
      if (!flag) throw new UsageError(error.message);
      throw new UsageError(`${flag}${error.value !== undefined ? ` ${JSON.stringify(error.value)}` : ''} ${error.message}`);
    }
    throw error;
  }
}

const services = (core: CliDeps) => clientServiceDeps(core, coreAuditSink(core));

const CLIENT_TYPES = ['confidential', 'public'] as const;

/** A flag whose value must be one of a few words: the error lists them and suggests the likely one. */
const createOptions = {
  name: { type: 'string' },
  type: { type: 'string' },
  'redirect-uri': { type: 'string', multiple: true },
  'grant-types': { type: 'string' },
  scope: { type: 'string' },
  'auth-method': { type: 'string' },
  'jwks-uri': { type: 'string' },
  jwks: { type: 'string' },
  'post-logout-redirect-uri': { type: 'string', multiple: true },
  'id-token-alg': { type: 'string' },
  'skip-consent': { type: 'boolean' },
  'require-mfa': { type: 'boolean' },
  'token-exchange-impersonation': { type: 'boolean' },
  secret: { type: 'string' },
  'allowed-origin': { type: 'string', multiple: true },
  'default-resource': { type: 'string' },
  'client-id': { type: 'string' },
  'identity-providers': { type: 'string' },
  'backchannel-logout-uri': { type: 'string' },
  'backchannel-logout-session-required': { type: 'boolean' },
} as const;

function readJwksFile(path: string): unknown {
  try {
    return JSON.parse(readFileSync(path, 'utf8'));
  } catch (error) {
    throw new UsageError(`--jwks ${path}: cannot read a JSON JWKS (${(error as Error).message})`);
  }
}

function metadataFromFlags(values: ReturnType<typeof parseCreate>): ClientMetadataInput {
  if (!values.name) throw new UsageError('--name is required');
  if (values.type === undefined) throw new UsageError(`--type is required: one of ${CLIENT_TYPES.join(', ')}`);
  oneOf('type', values.type, CLIENT_TYPES);
  oneOf('auth-method', values['auth-method'], TOKEN_ENDPOINT_AUTH_METHODS);
  oneOf('id-token-alg', values['id-token-alg'], SIGNING_ALGS);
  const authMethod = values['auth-method'] ?? (values.type === 'public' ? 'none' : 'client_secret_basic');
  if ((values.type === 'public') !== (authMethod === 'none')) {
    throw new UsageError('public clients use --auth-method none; confidential clients need another method');
  }
  return {
    client_name: values.name,
    redirect_uris: values['redirect-uri'] ?? [],
    post_logout_redirect_uris: values['post-logout-redirect-uri'] ?? [],
    grant_types: values['grant-types']
      ?.split(',')
      .map((g) => g.trim())
      .filter(Boolean),
    scope: values.scope ?? '',
    token_endpoint_auth_method: authMethod,
    ...(values['jwks-uri'] !== undefined ? { jwks_uri: values['jwks-uri'] } : {}),
    ...(values.jwks !== undefined ? { jwks: readJwksFile(values.jwks) } : {}),
    ...(values['id-token-alg'] !== undefined ? { id_token_signed_response_alg: values['id-token-alg'] } : {}),
    ...(values['backchannel-logout-uri'] !== undefined ? { backchannel_logout_uri: values['backchannel-logout-uri'] } : {}),
    ...(values['backchannel-logout-session-required'] ? { backchannel_logout_session_required: true } : {}),
  };
}

const parseCreate = (args: string[]) => parseArgs({ args, options: createOptions, strict: true, allowPositionals: false }).values;

export const clientsCreateCommand: Command = {
  name: 'clients create',
  usage:
    'clients create --name N --type confidential|public --grant-types authorization_code,refresh_token,client_credentials,urn:ietf:params:oauth:grant-type:device_code,urn:ietf:params:oauth:grant-type:token-exchange --scope "..." [--redirect-uri URI...] (required with authorization_code) [--auth-method client_secret_basic|client_secret_post|private_key_jwt|none] [--jwks-uri URL | --jwks FILE] [--post-logout-redirect-uri URI...] [--id-token-alg RS256|ES256] [--skip-consent] [--require-mfa] [--token-exchange-impersonation] (its token exchanges without an actor_token leave out act) [--secret S] [--allowed-origin ORIGIN...] (browser apps calling /token with CORS; a public client\'s redirect URI origins are allowed already) [--default-resource URI] (audience of tokens requested without resource) [--client-id ID] (a chosen client_id instead of a random one) [--identity-providers SLUG,...] (the upstream providers its login page offers; default all) [--backchannel-logout-uri URL [--backchannel-logout-session-required]] (OpenID Connect Back-Channel Logout)',
  async run(args, core) {
    const values = parseCreate(args);
    return asUsage(async () => {
      // Origins are checked before the other flags, as they always were.
      const allowedOrigins = checkedOrigins(values['allowed-origin'] ?? []);
      const input = {
        metadata: metadataFromFlags(values),
        allowedOrigins,
        ...(values['default-resource'] !== undefined ? { defaultResource: values['default-resource'] } : {}),
        skipConsent: values['skip-consent'] ?? false,
        requireMfa: values['require-mfa'] ?? false,
        tokenExchangeImpersonation: values['token-exchange-impersonation'] ?? false,
        ...(values.secret !== undefined ? { importedSecret: values.secret } : {}),
        ...(values['client-id'] !== undefined ? { clientId: values['client-id'] } : {}),
        ...(values['identity-providers'] !== undefined
          ? {
              identityProviders: values['identity-providers']
                .split(',')
                .map((s) => s.trim())
                .filter(Boolean),
            }
          : {}),
      };
      const { client, secret } = await createClientRecord(services(core), input, { actor: cliActor() });
      const tryOut = tryIt(client, core.config.ISSUER, secret);
      return {
        client_id: client.id,
        ...(secret !== undefined ? { client_secret: secret } : {}),
        ...clientMetadataView(client),
        ...(client.identityProviders ? { identity_providers: client.identityProviders } : {}),
        ...(tryOut ? { try_it: tryOut } : {}),
      };
    });
  },
};

export const clientsListCommand: Command = {
  name: 'clients list',
  usage: 'clients list',
  async run(args, core) {
    parseArgs({ args, options: {}, strict: true });
    const clients = await core.store.clients.list();
    return { clients: clients.map((c) => ({ ...clientMetadataView(c), disabled: c.disabled })) };
  },
};

/** The one CLIENT_ID argument; `--` before it lets an id that starts with "-" through. */
function clientIdArgument(args: string[], command: string): string {
  const { positionals } = parseArgs({ args, options: {}, strict: true, allowPositionals: true });
  if (positionals.length !== 1) throw new UsageError(`usage: gatehouse ${command} [--] CLIENT_ID`);
  return positionals[0]!;
}

export const clientsShowCommand: Command = {
  name: 'clients show',
  usage: 'clients show [--] CLIENT_ID',
  async run(args, core) {
    const id = clientIdArgument(args, 'clients show');
    const client = await asUsage(() => findClientRecord(core, id));
    return { ...clientMetadataView(client), disabled: client.disabled };
  },
};

export const clientsUpdateCommand: Command = {
  name: 'clients update',
  usage:
    'clients update [--] CLIENT_ID --token-exchange-impersonation on|off (RFC 8693: on, its token exchanges without an actor_token leave out act; needs the token-exchange grant type)',
  async run(args, core) {
    const { values, positionals } = parseArgs({ args, options: { 'token-exchange-impersonation': { type: 'string' } }, strict: true, allowPositionals: true });
    if (positionals.length !== 1) throw new UsageError('usage: gatehouse clients update [--] CLIENT_ID --token-exchange-impersonation on|off');
    const chosen = oneOf('token-exchange-impersonation', values['token-exchange-impersonation'], ['on', 'off'] as const);
    if (chosen === undefined) throw new UsageError('nothing to update: give --token-exchange-impersonation on|off');
    const client = await asUsage(() => setTokenExchangeImpersonation(services(core), positionals[0]!, chosen === 'on', { actor: cliActor() }));
    return { ...clientMetadataView(client), token_exchange_impersonation: client.tokenExchangeImpersonation, disabled: client.disabled };
  },
};

export const clientsDeleteCommand: Command = {
  name: 'clients delete',
  usage: 'clients delete [--] CLIENT_ID',
  async run(args, core) {
    const id = clientIdArgument(args, 'clients delete');
    await asUsage(() => endClientRecord(services(core), id, 'delete', { actor: cliActor() }));
    return { deleted: id };
  },
};

export const clientsDisableCommand: Command = {
  name: 'clients disable',
  usage: 'clients disable [--] CLIENT_ID',
  async run(args, core) {
    const id = clientIdArgument(args, 'clients disable');
    await asUsage(() => endClientRecord(services(core), id, 'disable', { actor: cliActor() }));
    return { disabled: id };
  },
};
