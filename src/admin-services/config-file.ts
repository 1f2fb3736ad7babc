// The configuration-as-code file of `gatehouse apply` and `gatehouse export` (docs/configuration-as-code.md):
// YAML read strictly — bounded size and aliases, unknown keys refused with their path, no literal secret —
// into entries named with the admin API's member names.
import { Type, type Static } from '@sinclair/typebox';
import { Value, ValueErrorType } from '@sinclair/typebox/value';
import { parseDocument, stringify } from 'yaml';
import { MAX_RESOURCE_SERVERS } from '../oauth/resources/registry.js';
import { AdminRuleError } from './rule-error.js';

/** A configuration file is a few hundred entries at most; anything far larger is a mistake or an attack. */
export const MAX_CONFIG_FILE_BYTES = 1024 * 1024;
const MAX_CLIENTS = 1_000;
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
    allowed_origins: Type.Optional(Strings()),
    default_resource: Type.Optional(Type.String({ maxLength: 512 })),
    /** Slugs of the upstream identity providers its login page offers; absent: every enabled one. */
    identity_providers: Type.Optional(Strings()),
  },
  { additionalProperties: false },
);

const ResourceServerEntry = Type.Object(
  {
    identifier: Type.String({ maxLength: 512 }),
    name: Type.String({ maxLength: 200 }),
    scopes: Type.Array(Type.Object({ name: Type.String({ maxLength: 64 }), description: Type.String({ maxLength: 200 }) }, { additionalProperties: false }), { maxItems: 100 }),
    access_token_ttl: Type.Optional(Type.Union([Type.Integer(), Type.Null()])),
    offline_access: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false },
);

const ConfigFileSchema = Type.Object(
  {
    version: Type.Optional(Type.Literal(1)),
    resource_servers: Type.Optional(Type.Array(ResourceServerEntry, { maxItems: MAX_RESOURCE_SERVERS })),
    clients: Type.Optional(Type.Array(ClientEntry, { maxItems: MAX_CLIENTS })),
  },
  { additionalProperties: false },
);

export type ClientEntry = Static<typeof ClientEntry>;
export type ResourceServerEntry = Static<typeof ResourceServerEntry>;
export interface ConfigFile {
  resource_servers: ResourceServerEntry[];
  clients: ClientEntry[];
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
  const clients = (document as { clients?: unknown })?.clients;
  if (!Array.isArray(clients)) return;
  clients.forEach((entry, index) => {
    if (typeof entry !== 'object' || entry === null) return;
    for (const key of LITERAL_SECRET_KEYS) {
      if (key in entry) {
        throw new AdminRuleError('invalid', 'a secret is never written in the file: name the environment variable that holds it with client_secret_env', `clients[${index}].${key}`);
      }
    }
  });
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
  const result = { resource_servers: file.resource_servers ?? [], clients: file.clients ?? [] };
  refuseDuplicates(result.clients.map((c) => c.client_id), 'clients', 'client_id');
  refuseDuplicates(result.resource_servers.map((s) => s.identifier), 'resource_servers', 'identifier');
  return result;
}

function refuseDuplicates(keys: readonly string[], list: string, member: string): void {
  const seen = new Set<string>();
  keys.forEach((key, index) => {
    if (seen.has(key)) throw new AdminRuleError('invalid', `${JSON.stringify(key.slice(0, 200))} appears twice`, `${list}[${index}].${member}`);
    seen.add(key);
  });
}

const HEADER = '# Gatehouse configuration (gatehouse export). Apply with: gatehouse apply -f FILE [--dry-run] [--prune]\n# Secrets are read from the environment variables named by client_secret_env; never write a secret here.\n';

export const formatConfigFile = (file: ConfigFile): string => HEADER + stringify({ version: 1, ...file }, { lineWidth: 0 });
