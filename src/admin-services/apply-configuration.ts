// `gatehouse apply`: brings resource servers, upstream identity providers and clients to what a
// configuration file declares, in one
// transaction, through the same service functions as the CLI and the admin API (so the same validation and
// the same audit events). The plan is computed under a lock against the committed state, so a second run
// finds nothing to do and two parallel runs end in one state (docs/configuration-as-code.md). An OpenID
// identity provider's endpoints come from its discovery document, read (through the outbound policy) for
// every entry before the transaction starts, so no database connection waits on an upstream.
import type { Clock } from '../clock.js';
import type { Config } from '../config.js';
import type { Store } from '../storage/store.js';
import { sha256 } from '../crypto/random.js';
import { usesSecret } from '../oauth/clients/create-client.js';
import type { ClientLookup } from '../oauth/clients/client-cache.js';
import { DEMO_CLIENT_ID } from '../oauth/clients/demo-client.js';
import { CONSOLE_CLIENT_ID } from '../oauth/clients/console-client.js';
import type { OutboundPolicy } from '../http/outbound/outbound-policy.js';
import { MAX_RESOURCE_SERVERS, resourceCatalogue, type ResourceRegistry } from '../oauth/resources/registry.js';
import type { Client } from '../storage/repositories/clients-repository.js';
import type { ResourceServer } from '../storage/repositories/resource-servers-repository.js';
import type { AuditSink } from '../audit/audit-sink.js';
import {
  createClientRecord,
  endClientRecord,
  replaceClientRecord,
  rotateClientSecret,
  type ActingAs,
  type ClientInput,
  type ClientServiceDeps,
} from './clients-service.js';
import {
  createResourceServerRecord,
  deleteResourceServerRecord,
  isBuiltIn,
  replaceResourceServerRecord,
  type ResourceServerInput,
  type ResourceServerServiceDeps,
} from './resource-servers-service.js';
import { keyEncryption } from '../crypto/key-encryption.js';
import { openWebhookSecret } from '../webhooks/secrets.js';
import {
  createWebhookRecord,
  deleteWebhookRecord,
  rotateWebhookSecret,
  updateWebhookRecord,
  type WebhookInput,
  type WebhookServiceDeps,
} from './webhooks-service.js';
import type { ClientEntry, ConfigFile, IdentityProviderEntry, ResourceServerEntry, WebhookEntry } from './config-file.js';
import {
  createResolvedIdentityProvider,
  deleteIdentityProviderRecord,
  MAX_IDENTITY_PROVIDERS,
  replaceResolvedIdentityProvider,
  resolveIdentityProvider,
  type IdentityProviderInput,
  type IdentityProviderServiceDeps,
} from './identity-providers-service.js';
import type { IdentityProvider, NewIdentityProvider } from '../storage/repositories/identity-providers-repository.js';
import { AdminRuleError } from './rule-error.js';

export interface ApplyDeps {
  store: Store;
  clock: Clock;
  config: Pick<Config, 'ACCESS_TOKEN_TTL' | 'CLOCK_SKEW' | 'CLIENT_CACHE_TTL' | 'ISSUER' | 'API_AUDIENCE' | 'WEBHOOK_ALLOWED_HOSTS'>;
  clients: Pick<ClientLookup, 'forget'>;
  resources: Pick<ResourceRegistry, 'forget'>;
  outbound: OutboundPolicy;
  /** Opens and seals webhook secrets (compared with the file's, sealed when new). */
  keyEncryptionKey: Buffer;
  audit: AuditSink;
}

export type PlanStep = {
  action: 'create' | 'update' | 'delete';
  resource: 'resource_server' | 'identity_provider' | 'client' | 'webhook';
  id: string;
  fields?: string[];
};

export interface ApplyResult {
  dry_run: boolean;
  prune: boolean;
  /** True when this run changed something (never on a dry run). */
  changed: boolean;
  summary: string;
  plan: PlanStep[];
  /** What --prune would delete (present when it was not given). */
  not_deleted?: { resource: PlanStep['resource']; id: string }[];
  /** New resource servers' /introspect credentials: the secret is shown here once, as by `resource-servers create`. */
  introspection_credentials?: { identifier: string; client_id: string; client_secret: string }[];
  /** What needs the operator's attention but changes nothing (an identity provider's secret variable unset here). */
  warnings?: string[];
}

/** A service error, re-labelled with the file position of the entry it concerns. */
async function at<T>(path: string, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof AdminRuleError) throw new AdminRuleError(error.code, error.message, error.field ? `${path}.${error.field}` : path, error.value);
    if (error instanceof Error && 'error' in error) throw new AdminRuleError('invalid', error.message, path);
    throw error;
  }
}

/** Secrets named by the file, read before anything changes: a missing variable stops the run. */
function resolveSecrets(file: ConfigFile, env: Readonly<Record<string, string | undefined>>): Map<string, string> {
  const secrets = new Map<string, string>();
  file.clients.forEach((entry, index) => {
    const path = `clients[${index}]`;
    const secretBased = usesSecret({ authMethod: (entry.token_endpoint_auth_method ?? 'client_secret_basic') as Client['authMethod'] });
    if (entry.client_secret_env === undefined) {
      if (secretBased)
        throw new AdminRuleError(
          'invalid',
          'a client that authenticates with a secret needs client_secret_env (the name of the environment variable holding it)',
          `${path}.client_secret_env`,
        );
      return;
    }
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(entry.client_secret_env))
      throw new AdminRuleError('invalid', 'must be the name of an environment variable', `${path}.client_secret_env`);
    const value = env[entry.client_secret_env];
    if (value === undefined || value === '')
      throw new AdminRuleError('invalid', `the environment variable ${entry.client_secret_env} is not set`, `${path}.client_secret_env`);
    secrets.set(entry.client_id, value);
  });
  return secrets;
}

/** Webhook secrets named by the file (secret_env, required), read before anything changes. */
export function resolveWebhookSecrets(file: ConfigFile, env: Readonly<Record<string, string | undefined>>): Map<string, string> {
  const secrets = new Map<string, string>();
  (file.webhooks ?? []).forEach((entry, index) => {
    const path = `webhooks[${index}].secret_env`;
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(entry.secret_env)) throw new AdminRuleError('invalid', 'must be the name of an environment variable', path);
    const value = env[entry.secret_env];
    if (value === undefined || value === '') throw new AdminRuleError('invalid', `the environment variable ${entry.secret_env} is not set`, path);
    secrets.set(entry.name, value);
  });
  return secrets;
}

const webhookInput = (entry: WebhookEntry): WebhookInput => ({
  name: entry.name,
  url: entry.url,
  description: entry.description ?? '',
  eventTypes: entry.event_types ?? [],
  enabled: entry.enabled ?? true,
});

const comparableWebhook = (w: { url: string; description: string; eventTypes: readonly string[]; enabled: boolean }) => ({
  url: w.url,
  description: w.description.trim(),
  event_types: sorted(w.eventTypes),
  enabled: w.enabled,
});
/** The service input of an identity-provider entry (the admin API's member names, as in the file). */
function providerInput(entry: IdentityProviderEntry): IdentityProviderInput {
  return {
    slug: entry.slug,
    clientId: entry.client_id,
    clientSecretEnv: entry.client_secret_env,
    ...(entry.name !== undefined ? { name: entry.name } : {}),
    ...(entry.kind !== undefined ? { kind: entry.kind } : {}),
    ...(entry.preset !== undefined ? { preset: entry.preset } : {}),
    ...(entry.issuer !== undefined ? { issuer: entry.issuer } : {}),
    ...(entry.scopes !== undefined ? { scopes: entry.scopes } : {}),
    ...(entry.domains !== undefined ? { domains: entry.domains } : {}),
    ...(entry.tenants !== undefined ? { tenants: entry.tenants } : {}),
    ...(entry.provision !== undefined ? { provision: entry.provision } : {}),
    ...(entry.link !== undefined ? { link: entry.link } : {}),
    ...(entry.authorization_endpoint !== undefined ? { authorizationEndpoint: entry.authorization_endpoint } : {}),
    ...(entry.token_endpoint !== undefined ? { tokenEndpoint: entry.token_endpoint } : {}),
    ...(entry.userinfo_endpoint !== undefined ? { userinfoEndpoint: entry.userinfo_endpoint } : {}),
    ...(entry.emails_endpoint !== undefined ? { emailsEndpoint: entry.emails_endpoint } : {}),
    ...(entry.token_endpoint_auth_method !== undefined ? { tokenEndpointAuthMethod: entry.token_endpoint_auth_method } : {}),
    ...(entry.claims !== undefined ? { claims: entry.claims } : {}),
    ...(entry.trust_mfa !== undefined ? { trustMfa: entry.trust_mfa } : {}),
    ...(entry.store_tokens !== undefined ? { storeTokens: entry.store_tokens } : {}),
  };
}

const sortedKeys = (record: Record<string, string>) => Object.fromEntries(Object.entries(record).sort(([a], [b]) => a.localeCompare(b)));

/** The comparable settings of a provider, stored or resolved from an entry, in the admin API's member names. */
function comparableProvider(p: NewIdentityProvider, enabled: boolean): Record<string, unknown> {
  return {
    name: p.name,
    kind: p.kind,
    preset: p.preset,
    issuer: p.issuer,
    authorization_endpoint: p.authorizationEndpoint,
    token_endpoint: p.tokenEndpoint,
    userinfo_endpoint: p.userinfoEndpoint,
    emails_endpoint: p.emailsEndpoint,
    jwks_uri: p.jwksUri,
    authorization_response_iss_parameter_supported: p.authorizationResponseIss,
    client_id: p.clientId,
    client_secret_env: p.clientSecretEnv,
    token_endpoint_auth_method: p.tokenEndpointAuthMethod,
    scopes: p.scopes,
    domains: sorted(p.domains),
    tenants: sorted(p.tenants),
    claims: sortedKeys(p.claims),
    provision: p.provision,
    link: p.link,
    trust_mfa: p.trustMfa ?? false,
    store_tokens: p.storeTokens ?? false,
    enabled,
  };
}

/**
 * Each identity-provider entry resolved as the service would (presets, checks, an OpenID provider's
 * discovery document), before the transaction; errors name the entry.
 */
async function resolveProviders(deps: IdentityProviderServiceDeps, entries: readonly IdentityProviderEntry[]): Promise<NewIdentityProvider[]> {
  const resolved: NewIdentityProvider[] = [];
  for (const [index, entry] of entries.entries())
    resolved.push(await at(`identity_providers[${index}]`, () => resolveIdentityProvider(deps, providerInput(entry))));
  return resolved;
}

/** The server reads a provider's secret at each use, not apply: a variable unset where apply runs is only a warning. */
function providerSecretWarnings(entries: readonly IdentityProviderEntry[], env: Readonly<Record<string, string | undefined>>): string[] {
  return entries.flatMap((entry, index) =>
    env[entry.client_secret_env]
      ? []
      : [
          `identity_providers[${index}].client_secret_env: ${entry.client_secret_env} is not set here; the server reads it at each sign-in with ${entry.slug}, so set it in the server's environment`,
        ],
  );
}

const sorted = (values: readonly string[]) => [...new Set(values)].sort();

/** The comparable settings of a file entry, defaults filled in as the services fill them. */
function desiredClient(entry: ClientEntry): Record<string, unknown> {
  return {
    client_name: entry.client_name,
    token_endpoint_auth_method: entry.token_endpoint_auth_method ?? 'client_secret_basic',
    grant_types: sorted(entry.grant_types),
    scope: sorted((entry.scope ?? '').split(/\s+/).filter(Boolean)),
    redirect_uris: entry.redirect_uris ?? [],
    post_logout_redirect_uris: entry.post_logout_redirect_uris ?? [],
    jwks: entry.jwks ?? null,
    jwks_uri: entry.jwks_uri ?? null,
    id_token_signed_response_alg: entry.id_token_signed_response_alg ?? 'RS256',
    skip_consent: entry.skip_consent ?? false,
    require_mfa: entry.require_mfa ?? false,
    token_exchange_impersonation: entry.token_exchange_impersonation ?? false,
    allowed_origins: sorted(entry.allowed_origins ?? []),
    default_resource: entry.default_resource ?? null,
    identity_providers: entry.identity_providers ? sorted(entry.identity_providers) : null,
    backchannel_logout_uri: entry.backchannel_logout_uri ?? null,
    backchannel_logout_session_required: entry.backchannel_logout_session_required ?? false,
  };
}

function currentClient(client: Client): Record<string, unknown> {
  return {
    client_name: client.name,
    token_endpoint_auth_method: client.authMethod,
    grant_types: sorted(client.grantTypes),
    scope: sorted(client.scopes),
    redirect_uris: client.redirectUris,
    post_logout_redirect_uris: client.postLogoutRedirectUris,
    jwks: client.jwks ?? null,
    jwks_uri: client.jwksUri ?? null,
    id_token_signed_response_alg: client.idTokenSignedResponseAlg,
    skip_consent: client.skipConsent,
    require_mfa: client.requireMfa,
    token_exchange_impersonation: client.tokenExchangeImpersonation,
    allowed_origins: sorted(client.allowedOrigins),
    default_resource: client.defaultResource ?? null,
    identity_providers: client.identityProviders ? sorted(client.identityProviders) : null,
    backchannel_logout_uri: client.backchannelLogoutUri,
    backchannel_logout_session_required: client.backchannelLogoutSessionRequired,
  };
}

const differing = (a: Record<string, unknown>, b: Record<string, unknown>) => Object.keys(a).filter((k) => JSON.stringify(a[k]) !== JSON.stringify(b[k]));

function clientInput(entry: ClientEntry): ClientInput {
  return {
    metadata: {
      client_name: entry.client_name,
      redirect_uris: entry.redirect_uris ?? [],
      post_logout_redirect_uris: entry.post_logout_redirect_uris ?? [],
      grant_types: entry.grant_types,
      scope: entry.scope ?? '',
      token_endpoint_auth_method: entry.token_endpoint_auth_method ?? 'client_secret_basic',
      ...(entry.jwks !== undefined ? { jwks: entry.jwks } : {}),
      ...(entry.jwks_uri !== undefined ? { jwks_uri: entry.jwks_uri } : {}),
      ...(entry.id_token_signed_response_alg !== undefined ? { id_token_signed_response_alg: entry.id_token_signed_response_alg } : {}),
      ...(entry.backchannel_logout_uri !== undefined ? { backchannel_logout_uri: entry.backchannel_logout_uri } : {}),
      ...(entry.backchannel_logout_session_required !== undefined ? { backchannel_logout_session_required: entry.backchannel_logout_session_required } : {}),
    },
    allowedOrigins: entry.allowed_origins ?? [],
    skipConsent: entry.skip_consent ?? false,
    requireMfa: entry.require_mfa ?? false,
    tokenExchangeImpersonation: entry.token_exchange_impersonation ?? false,
    defaultResource: entry.default_resource ?? null,
    identityProviders: entry.identity_providers ?? null,
  };
}

const serverInput = (entry: ResourceServerEntry): ResourceServerInput => ({
  name: entry.name,
  // Without claims: a configuration file does not carry mappings yet, so apply keeps the ones set elsewhere.
  scopes: entry.scopes.map((s) => ({ name: s.name, description: s.description })),
  accessTokenTtl: entry.access_token_ttl ?? null,
  offlineAccess: entry.offline_access ?? true,
});

const comparableServer = (s: ResourceServerInput) => ({
  name: s.name.trim(),
  scopes: s.scopes.map((x) => ({ name: x.name, description: x.description.trim() })),
  access_token_ttl: s.accessTokenTtl,
  offline_access: s.offlineAccess,
});

/**
 * The clients apply manages: not the introspection clients of resource servers (they come and go with
 * their server), not clients registered at /register (their owners manage them, RFC 7592), not the built-in
 * demo and console clients.
 */
function managedClients(all: readonly Client[], servers: readonly ResourceServer[]): Client[] {
  const introspection = new Set(servers.map((s) => s.clientId).filter((id): id is string => id !== null));
  return all.filter(
    (c) =>
      !introspection.has(c.id) && c.id !== DEMO_CLIENT_ID && c.id !== CONSOLE_CLIENT_ID && c.registrationTokenHash === null && c.registrationPolicy === null,
  );
}

/** Every client (disabled ones too) and resource server, as the transaction sees them. */
export async function readState(store: Store): Promise<{ clients: Client[]; servers: ResourceServer[]; providers: IdentityProvider[] }> {
  const servers = await store.resourceServers.list(MAX_RESOURCE_SERVERS);
  const all = await store.clientAdmin.page({ limit: 100_000 });
  const providers = await store.identityProviders.page({ limit: MAX_IDENTITY_PROVIDERS });
  return { servers, clients: managedClients(all, servers), providers };
}

export async function applyConfiguration(
  deps: ApplyDeps,
  file: ConfigFile,
  env: Readonly<Record<string, string | undefined>>,
  options: { dryRun: boolean; prune: boolean },
  as: ActingAs,
): Promise<ApplyResult> {
  const secrets = resolveSecrets(file, env);
  const webhookSecrets = resolveWebhookSecrets(file, env);
  const providerDeps: IdentityProviderServiceDeps = { store: deps.store, clock: deps.clock, config: deps.config, outbound: deps.outbound, audit: deps.audit };
  const resolvedProviders = await resolveProviders(providerDeps, file.identity_providers);
  const warnings = providerSecretWarnings(file.identity_providers, env);
  const touchedClients = new Set<string>();
  // store.transaction: the audit events of every change log their lines only once the whole run has committed.
  const result = await deps.store.transaction(async (tx) => {
    await tx.locks.apply();
    const state = await readState(tx);
    const plan: PlanStep[] = [];
    const serverSteps: (() => Promise<void>)[] = [];
    const providerSteps: (() => Promise<void>)[] = [];
    const clientSteps: (() => Promise<void>)[] = [];
    const deleteSteps: (() => Promise<void>)[] = [];
    const webhookSteps: (() => Promise<void>)[] = [];
    // Who may exchange into a resource server names clients, which are written after the servers.
    const exchangeSteps: (() => Promise<void>)[] = [];
    const credentials: NonNullable<ApplyResult['introspection_credentials']> = [];
    // Within the transaction: the catalogue includes the resource servers this run creates (a client may use their scopes).
    const serverDeps: ResourceServerServiceDeps = { ...deps, store: tx, resources: { forget: () => {} } };
    const clientDeps: ClientServiceDeps = {
      ...deps,
      store: tx,
      resources: { catalogue: async () => resourceCatalogue(await tx.resourceServers.list(MAX_RESOURCE_SERVERS)) },
    };

    file.resource_servers.forEach((entry, index) => {
      const path = `resource_servers[${index}]`;
      const input = serverInput(entry);
      const current = state.servers.find((s) => s.identifier === entry.identifier);
      const exchangeClients = sorted(entry.token_exchange_clients ?? []);
      if (JSON.stringify(exchangeClients) !== JSON.stringify(sorted(current?.tokenExchangeClients ?? []))) {
        if (current) plan.push({ action: 'update', resource: 'resource_server', id: entry.identifier, fields: ['token_exchange_clients'] });
        exchangeSteps.push(async () => {
          await at(path, () => replaceResourceServerRecord(serverDeps, entry.identifier, { ...input, tokenExchangeClients: exchangeClients }, undefined, as));
        });
      }
      if (!current) {
        plan.push({ action: 'create', resource: 'resource_server', id: entry.identifier });
        serverSteps.push(async () => {
          const { server, secret } = await at(path, () => createResourceServerRecord(serverDeps, entry.identifier, input, as));
          credentials.push({ identifier: server.identifier, client_id: server.clientId!, client_secret: secret });
        });
        return;
      }
      const fields = differing(comparableServer(input), comparableServer({ ...current, scopes: current.scopes }));
      if (fields.length === 0) return;
      plan.push({ action: 'update', resource: 'resource_server', id: entry.identifier, fields });
      serverSteps.push(async () => {
        await at(path, () => replaceResourceServerRecord(serverDeps, entry.identifier, input, undefined, as));
      });
    });

    const txProviderDeps: IdentityProviderServiceDeps = { ...providerDeps, store: tx };
    file.identity_providers.forEach((entry, index) => {
      const path = `identity_providers[${index}]`;
      const resolved = resolvedProviders[index]!;
      // Declarative: an entry without `enabled` is enabled (export writes `enabled: false` for a disabled one).
      const enabled = entry.enabled ?? true;
      const current = state.providers.find((p) => p.slug === entry.slug);
      if (!current) {
        plan.push({ action: 'create', resource: 'identity_provider', id: entry.slug });
        providerSteps.push(async () => {
          await at(path, () => createResolvedIdentityProvider(txProviderDeps, resolved, enabled, as));
        });
        return;
      }
      const fields = differing(comparableProvider(resolved, enabled), comparableProvider(current, current.enabled)).sort();
      if (fields.length === 0) return;
      plan.push({ action: 'update', resource: 'identity_provider', id: entry.slug, fields });
      providerSteps.push(async () => {
        await at(path, () => replaceResolvedIdentityProvider(txProviderDeps, current, resolved, enabled, current.version, as));
      });
    });

    file.clients.forEach((entry, index) => {
      const path = `clients[${index}]`;
      const secret = secrets.get(entry.client_id);
      const current = state.clients.find((c) => c.id === entry.client_id);
      touchedClients.add(entry.client_id);
      if (!current) {
        plan.push({ action: 'create', resource: 'client', id: entry.client_id });
        clientSteps.push(async () => {
          await at(path, () =>
            createClientRecord(
              clientDeps,
              { ...clientInput(entry), clientId: entry.client_id, ...(secret !== undefined ? { importedSecret: secret } : {}) },
              as,
            ),
          );
        });
        return;
      }
      const fields = differing(desiredClient(entry), currentClient(current));
      const newSecret = secret !== undefined && sha256(secret) !== current.secretHash;
      if (fields.length === 0 && !newSecret) return;
      plan.push({ action: 'update', resource: 'client', id: entry.client_id, fields: [...fields, ...(newSecret ? ['client_secret'] : [])].sort() });
      clientSteps.push(async () => {
        if (fields.length > 0) await at(path, () => replaceClientRecord(clientDeps, current, clientInput(entry), current.version, as));
        if (newSecret) await at(path, () => rotateClientSecret(clientDeps, current.id, { importedSecret: secret }, as));
      });
    });

    // Webhooks only when the file has the list: a file without `webhooks:` leaves them alone, even with --prune.
    const webhookDeps: WebhookServiceDeps = { ...deps, store: tx };
    const endpoints = file.webhooks ? await tx.webhookEndpoints.page({ limit: 10_000 }) : [];
    const encryption = keyEncryption(deps.keyEncryptionKey);
    (file.webhooks ?? []).forEach((entry, index) => {
      const path = `webhooks[${index}]`;
      const secret = webhookSecrets.get(entry.name)!;
      const input = webhookInput(entry);
      const current = endpoints.find((e) => e.name === entry.name);
      if (!current) {
        plan.push({ action: 'create', resource: 'webhook', id: entry.name });
        webhookSteps.push(async () => {
          await at(path, () => createWebhookRecord(webhookDeps, { ...input, secret, secretEnv: entry.secret_env }, as));
        });
        return;
      }
      const fields = differing(
        comparableWebhook({ ...input, description: input.description ?? '', eventTypes: input.eventTypes ?? [], enabled: input.enabled ?? true }),
        comparableWebhook(current),
      );
      let currentSecret: string | undefined;
      try {
        currentSecret = openWebhookSecret(encryption, current.id, current.sealedSecret);
      } catch {
        currentSecret = undefined; // sealed under another key-encryption key: the file's secret replaces it
      }
      const newSecret = currentSecret !== secret;
      if (fields.length === 0 && !newSecret) return;
      plan.push({ action: 'update', resource: 'webhook', id: entry.name, fields: [...fields, ...(newSecret ? ['secret'] : [])].sort() });
      webhookSteps.push(async () => {
        if (fields.length > 0) await at(path, () => updateWebhookRecord(webhookDeps, current, input, current.version, as));
        // The previous secret keeps signing (a second signature) for the default grace period.
        if (newSecret)
          await at(path, async () =>
            rotateWebhookSecret(webhookDeps, (await tx.webhookEndpoints.find(current.id))!, { secret, secretEnv: entry.secret_env }, undefined, as),
          );
      });
    });
    const extraWebhooks = file.webhooks ? endpoints.filter((e) => !file.webhooks!.some((w) => w.name === e.name)) : [];

    const extraClients = state.clients.filter((c) => !file.clients.some((e) => e.client_id === c.id));
    const extraProviders = state.providers.filter((p) => !file.identity_providers.some((e) => e.slug === p.slug));
    const extraServers = state.servers.filter(
      (s) => !isBuiltIn(deps.config, s.identifier) && !file.resource_servers.some((e) => e.identifier === s.identifier),
    );
    if (options.prune) {
      for (const client of extraClients) {
        plan.push({ action: 'delete', resource: 'client', id: client.id });
        touchedClients.add(client.id);
        deleteSteps.push(async () => endClientRecord(clientDeps, client.id, 'delete', as));
      }
      for (const server of extraServers) {
        plan.push({ action: 'delete', resource: 'resource_server', id: server.identifier });
        deleteSteps.push(async () => deleteResourceServerRecord(serverDeps, server.identifier, undefined, as));
      }
      for (const endpoint of extraWebhooks) {
        plan.push({ action: 'delete', resource: 'webhook', id: endpoint.name });
        deleteSteps.push(async () => deleteWebhookRecord(webhookDeps, endpoint, undefined, as));
      }
      // Deleting a provider deletes the links of users to it (the users stay): --prune says so in its plan.
      for (const provider of extraProviders) {
        plan.push({ action: 'delete', resource: 'identity_provider', id: provider.slug });
        deleteSteps.push(async () => {
          await deleteIdentityProviderRecord(txProviderDeps, provider.id, provider.version, as);
        });
      }
    }
    // Resource servers and identity providers first (clients name their scopes and slugs), deletions last
    // (clients are deleted before what they referred to).
    if (!options.dryRun) for (const step of [...serverSteps, ...providerSteps, ...clientSteps, ...exchangeSteps, ...webhookSteps, ...deleteSteps]) await step();
    return {
      plan,
      credentials,
      notDeleted: options.prune
        ? undefined
        : [
            ...extraClients.map((c) => ({ resource: 'client' as const, id: c.id })),
            ...extraServers.map((s) => ({ resource: 'resource_server' as const, id: s.identifier })),
            ...extraWebhooks.map((w) => ({ resource: 'webhook' as const, id: w.name })),
            ...extraProviders.map((p) => ({ resource: 'identity_provider' as const, id: p.slug })),
          ],
    };
  });
  // Committed: this instance forgets what it cached (the services did too, but a request may have re-read
  // the old rows before the commit). Other instances re-read within CLIENT_CACHE_TTL.
  if (!options.dryRun && result.plan.length > 0) {
    deps.resources.forget();
    for (const id of touchedClients) deps.clients.forget(id);
  }
  const count = result.plan.length;
  return {
    dry_run: options.dryRun,
    prune: options.prune,
    changed: !options.dryRun && count > 0,
    summary:
      count === 0 ? 'nothing to change' : `${count} change${count === 1 ? '' : 's'} ${options.dryRun ? 'planned (dry run: nothing was changed)' : 'applied'}`,
    plan: result.plan,
    ...(result.notDeleted && result.notDeleted.length > 0 ? { not_deleted: result.notDeleted } : {}),
    ...(result.credentials.length > 0 ? { introspection_credentials: result.credentials } : {}),
    ...(warnings.length > 0 ? { warnings } : {}),
  };
}
