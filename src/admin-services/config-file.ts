// The configuration-as-code file of `gatehouse apply` and `gatehouse export` (docs/configuration-as-code.md):
// YAML read strictly — bounded size and aliases, unknown keys refused with their path, no literal secret —
// into entries named with the admin API's member names.
import { Type, type Static } from '@sinclair/typebox';
import { Value, ValueErrorType } from '@sinclair/typebox/value';
import { parseDocument, stringify } from 'yaml';
import { MAX_RESOURCE_SERVERS } from '../oauth/resources/registry.js';
import { MAX_IDENTITY_PROVIDERS } from './identity-providers-service.js';
import { AdminRuleError } from './rule-error.js';

/** A configuration file is a few hundred entries at most; anything far larger is a mistake or an attack. */
export const MAX_CONFIG_FILE_BYTES = 1024 * 1024;
const MAX_CLIENTS = 1_000;
const MAX_WEBHOOKS = 100;
/** YAML aliases expand (the "billion laughs"): a handful is all a hand-written file needs. */
const MAX_ALIASES = 100;

const Strings = (maxItems = 50) => Type.Array(Type.String({ maxLength: 2048 }), { maxItems });

const ClientEntry = Type.Object(
  {
    client_id: Type.String({ maxLength: 128 }),
    client_name: Type.String({ maxLength: 200 }),
    token_endpoint_auth_method: Type.Optional(Type.String({ maxLength: 40 })),
    /** The NAME of the environment variable holding the secret, never the secret. */
    client_secret_env: Type.Optional(Type.String({ maxLength: 128 })),
    grant_types: Strings(),
    scope: Type.Optional(Type.String({ maxLength: 4096 })),
    redirect_uris: Type.Optional(Strings()),
    post_logout_redirect_uris: Type.Optional(Strings()),
    jwks_uri: Type.Optional(Type.String({ maxLength: 2048 })),
    jwks: Type.Optional(Type.Object({ keys: Type.Array(Type.Object({}, { additionalProperties: true }), { maxItems: 20 }) })),
    id_token_signed_response_alg: Type.Optional(Type.String({ maxLength: 10 })),
    skip_consent: Type.Optional(Type.Boolean()),
    require_mfa: Type.Optional(Type.Boolean()),
    /** RFC 8693: its exchanges without an actor_token leave out `act` (docs/token-exchange.md). */
    token_exchange_impersonation: Type.Optional(Type.Boolean()),
    allowed_origins: Type.Optional(Strings()),
    default_resource: Type.Optional(Type.String({ maxLength: 512 })),
    /** Slugs of the upstream identity providers its login page offers; absent: every enabled one. */
    identity_providers: Type.Optional(Strings()),
    /** OpenID Connect Back-Channel Logout (docs/backchannel-logout.md). */
    backchannel_logout_uri: Type.Optional(Type.String({ maxLength: 2048 })),
    backchannel_logout_session_required: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false },
);

const WebhookEntry = Type.Object(
  {
    name: Type.String({ maxLength: 63 }),
    url: Type.String({ maxLength: 2048 }),
    description: Type.Optional(Type.String({ maxLength: 500 })),
    /** Absent or empty: every event type. */
    event_types: Type.Optional(Type.Array(Type.String({ maxLength: 64 }), { maxItems: 50 })),
    enabled: Type.Optional(Type.Boolean()),
    /** The NAME of the environment variable holding the signing secret (whsec_…), never the secret. */
    secret_env: Type.String({ maxLength: 128 }),
  },
  { additionalProperties: false },
);

/** An upstream identity provider (docs/federation.md), with the admin API's member names; the slug is its key. */
const IdentityProviderEntry = Type.Object(
  {
    slug: Type.String({ maxLength: 63 }),
    name: Type.Optional(Type.String({ maxLength: 100 })),
    kind: Type.Optional(Type.Union([Type.Literal('oidc'), Type.Literal('oauth2')])),
    preset: Type.Optional(Type.Union([Type.Literal('google'), Type.Literal('microsoft'), Type.Literal('github'), Type.Literal('gitlab')])),
    issuer: Type.Optional(Type.String({ maxLength: 2048 })),
    client_id: Type.String({ maxLength: 512 }),
    /** The NAME of the environment variable the server reads the client secret from, never the secret. */
    client_secret_env: Type.String({ maxLength: 128 }),
    scopes: Type.Optional(Type.Array(Type.String({ maxLength: 128 }), { maxItems: 50 })),
    domains: Type.Optional(Type.Array(Type.String({ maxLength: 253 }), { maxItems: 50 })),
    tenants: Type.Optional(Type.Array(Type.String({ maxLength: 64 }), { maxItems: 50 })),
    provision: Type.Optional(Type.Boolean()),
    link: Type.Optional(Type.Union([Type.Literal('verified-email'), Type.Literal('never')])),
    authorization_endpoint: Type.Optional(Type.String({ maxLength: 2048 })),
    token_endpoint: Type.Optional(Type.String({ maxLength: 2048 })),
    userinfo_endpoint: Type.Optional(Type.String({ maxLength: 2048 })),
    emails_endpoint: Type.Optional(Type.String({ maxLength: 2048 })),
    token_endpoint_auth_method: Type.Optional(Type.Union([Type.Literal('client_secret_basic'), Type.Literal('client_secret_post')])),
    claims: Type.Optional(Type.Record(Type.String({ maxLength: 64 }), Type.String({ maxLength: 128 }))),
    trust_mfa: Type.Optional(Type.Boolean()),
    store_tokens: Type.Optional(Type.Boolean()),
    enabled: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false },
);

const ResourceServerEntry = Type.Object(
  {
    identifier: Type.String({ maxLength: 512 }),
    name: Type.String({ maxLength: 200 }),
    scopes: Type.Array(Type.Object({ name: Type.String({ maxLength: 64 }), description: Type.String({ maxLength: 200 }) }, { additionalProperties: false }), {
      maxItems: 100,
    }),
    access_token_ttl: Type.Optional(Type.Union([Type.Integer(), Type.Null()])),
    offline_access: Type.Optional(Type.Boolean()),
    /** RFC 8693: the clients (of this file or already registered) that may exchange a user token into it. */
    token_exchange_clients: Type.Optional(Type.Array(Type.String({ maxLength: 128 }), { maxItems: 50 })),
  },
  { additionalProperties: false },
);

const ConfigFileSchema = Type.Object(
  {
    version: Type.Optional(Type.Literal(1)),
    resource_servers: Type.Optional(Type.Array(ResourceServerEntry, { maxItems: MAX_RESOURCE_SERVERS })),
    identity_providers: Type.Optional(Type.Array(IdentityProviderEntry, { maxItems: MAX_IDENTITY_PROVIDERS })),
    clients: Type.Optional(Type.Array(ClientEntry, { maxItems: MAX_CLIENTS })),
    webhooks: Type.Optional(Type.Array(WebhookEntry, { maxItems: MAX_WEBHOOKS })),
  },
  { additionalProperties: false },
);

export type ClientEntry = Static<typeof ClientEntry>;
export type ResourceServerEntry = Static<typeof ResourceServerEntry>;
export type WebhookEntry = Static<typeof WebhookEntry>;
export type IdentityProviderEntry = Static<typeof IdentityProviderEntry>;
export interface ConfigFile {
  resource_servers: ResourceServerEntry[];
  identity_providers: IdentityProviderEntry[];
  clients: ClientEntry[];
  /** Absent from a file: webhooks are left alone (and never pruned). */
  webhooks?: WebhookEntry[];
}

/** "/clients/2/redirect_uris" → "clients[2].redirect_uris": the path as an operator reads the file. */
function readablePath(pointer: string): string {
  return pointer
    .split('/')
    .slice(1)
    .map((part) => part.replace(/~1/g, '/').replace(/~0/g, '~'))
    .reduce((path, part) => (/^\d+$/.test(part) ? `${path}[${part}]` : path === '' ? part : `${path}.${part}`), '');
}

const LITERAL_SECRET_KEYS = ['client_secret', 'secret'];

/** A secret written into the file would end up in version control: refused, naming where. */
function refuseLiteralSecrets(document: unknown): void {
  for (const [list, member] of [
    ['clients', 'client_secret_env'],
    ['identity_providers', 'client_secret_env'],
    ['webhooks', 'secret_env'],
  ] as const) {
    const entries = (document as Record<string, unknown> | null)?.[list];
    if (!Array.isArray(entries)) continue;
    entries.forEach((entry, index) => {
      if (typeof entry !== 'object' || entry === null) return;
      for (const key of LITERAL_SECRET_KEYS) {
        if (key in entry) {
          throw new AdminRuleError(
            'invalid',
            `a secret is never written in the file: name the environment variable that holds it with ${member}`,
            `${list}[${index}].${key}`,
          );
        }
      }
    });
  }
}

/** Parses and checks the file; every error names its place (`clients[2].redirect_uris`). */
export function parseConfigFile(text: string): ConfigFile {
  if (Buffer.byteLength(text) > MAX_CONFIG_FILE_BYTES) throw new AdminRuleError('invalid', `the file is larger than ${MAX_CONFIG_FILE_BYTES} bytes`, '');
  const parsed = parseDocument(text, { uniqueKeys: true, prettyErrors: false });
  const syntax = parsed.errors[0];
  if (syntax) throw new AdminRuleError('invalid', `not valid YAML: ${syntax.message.split('\n')[0]}`, '');
  let document: unknown;
  try {
    document = parsed.toJS({ maxAliasCount: MAX_ALIASES }) ?? {};
  } catch (error) {
    throw new AdminRuleError('invalid', `not usable YAML: ${(error as Error).message.split('\n')[0]}`, '');
  }
  refuseLiteralSecrets(document);
  const first = Value.Errors(ConfigFileSchema, document).First();
  if (first) {
    const unknown = first.type === ValueErrorType.ObjectAdditionalProperties;
    throw new AdminRuleError('invalid', unknown ? 'is not a known key' : first.message.toLowerCase(), readablePath(first.path) || '(top level)');
  }
  const file = document as Static<typeof ConfigFileSchema>;
  const result: ConfigFile = {
    resource_servers: file.resource_servers ?? [],
    identity_providers: file.identity_providers ?? [],
    clients: file.clients ?? [],
    ...(file.webhooks ? { webhooks: file.webhooks } : {}),
  };
  refuseDuplicates(
    result.clients.map((c) => c.client_id),
    'clients',
    'client_id',
  );
  refuseDuplicates(
    (result.webhooks ?? []).map((w) => w.name),
    'webhooks',
    'name',
  );
  refuseDuplicates(
    result.resource_servers.map((s) => s.identifier),
    'resource_servers',
    'identifier',
  );
  refuseDuplicates(
    result.identity_providers.map((p) => p.slug),
    'identity_providers',
    'slug',
  );
  return result;
}

function refuseDuplicates(keys: readonly string[], list: string, member: string): void {
  const seen = new Set<string>();
  keys.forEach((key, index) => {
    if (seen.has(key)) throw new AdminRuleError('invalid', `${JSON.stringify(key.slice(0, 200))} appears twice`, `${list}[${index}].${member}`);
    seen.add(key);
  });
}

const HEADER =
  '# Gatehouse configuration (gatehouse export). Apply with: gatehouse apply -f FILE [--dry-run] [--prune]\n# Secrets are read from the environment variables named by client_secret_env and secret_env (read by apply for a\n# client or webhook, by the server at each use for an identity provider); never write a secret here.\n';

export const formatConfigFile = (file: ConfigFile): string => HEADER + stringify({ version: 1, ...file }, { lineWidth: 0 });
