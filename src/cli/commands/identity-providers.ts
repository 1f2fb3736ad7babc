// `gatehouse identity-providers create|update|list|show|delete|disable`: upstream identity providers users may sign
// in with (docs/federation.md). The rules are the service's (src/admin-services/identity-providers-service.ts),
// shared with /admin/v1 and `gatehouse apply`. The client secret is never given here: only the name of the
// environment variable the server reads it from (--client-secret-env).
import { parseArgs } from 'node:util';
import type { CliDeps } from '../deps.js';
import { PRESETS } from '../../federation/presets.js';
import type { IdentityProviderPreset } from '../../storage/repositories/identity-providers-repository.js';
import { oneOf } from '../flag-values.js';
import {
  cliActor,
  coreAuditSink,
  createIdentityProviderRecord,
  deleteIdentityProviderRecord,
  disableIdentityProviderRecord,
  findIdentityProviderRecord,
  identityProviderServiceDeps,
  identityProviderView,
  listIdentityProviderRecords,
  MAX_IDENTITY_PROVIDERS,
  updateIdentityProviderSwitches,
  type IdentityProviderInput,
} from '../../admin-services/index.js';
import { UsageError, type Command } from '../command.js';
import { ruleErrorsAsUsage } from '../rule-errors-as-usage.js';

// The service's errors name API members; the CLI names its flags.
const FLAG_OF: Record<string, string> = {
  name: '--name',
  slug: '--slug',
  kind: '--kind',
  issuer: '--issuer',
  client_id: '--client-id',
  client_secret_env: '--client-secret-env',
  scopes: '--scope',
  domains: '--domain',
  tenants: '--tenant',
  claims: '--claim',
  authorization_endpoint: '--authorization-endpoint',
  token_endpoint: '--token-endpoint',
  userinfo_endpoint: '--userinfo-endpoint',
  emails_endpoint: '--emails-endpoint',
  trust_mfa: '--trust-mfa',
  store_tokens: '--store-tokens',
  jwks_uri: "--issuer (its discovery document's jwks_uri)",
};

const asUsage = ruleErrorsAsUsage(FLAG_OF);

const services = (core: CliDeps) => identityProviderServiceDeps(core, coreAuditSink(core));

/** `--claim local=upstream` (repeatable). */
function claimMappings(values: readonly string[] | undefined): Record<string, string> | undefined {
  if (!values) return undefined;
  return Object.fromEntries(
    values.map((v) => {
      const at = v.indexOf('=');
      if (at <= 0 || at === v.length - 1) throw new UsageError(`--claim expects local=upstream (e.g. sub=id), got ${JSON.stringify(v.slice(0, 64))}`);
      return [v.slice(0, at), v.slice(at + 1)];
    }),
  );
}

const createOptions = {
  name: { type: 'string' },
  slug: { type: 'string' },
  kind: { type: 'string' },
  preset: { type: 'string' },
  issuer: { type: 'string' },
  'client-id': { type: 'string' },
  'client-secret-env': { type: 'string' },
  scope: { type: 'string' },
  domain: { type: 'string', multiple: true },
  tenant: { type: 'string', multiple: true },
  provision: { type: 'string' },
  'trust-mfa': { type: 'string' },
  'store-tokens': { type: 'string' },
  link: { type: 'string' },
  'authorization-endpoint': { type: 'string' },
  'token-endpoint': { type: 'string' },
  'userinfo-endpoint': { type: 'string' },
  'emails-endpoint': { type: 'string' },
  'token-endpoint-auth-method': { type: 'string' },
  claim: { type: 'string', multiple: true },
} as const;

export const identityProvidersCreateCommand: Command = {
  name: 'identity-providers create',
  usage:
    'identity-providers create --client-id ID --client-secret-env VAR (--issuer URL | --preset google|microsoft|github|gitlab | --kind oauth2 --authorization-endpoint URL --token-endpoint URL --userinfo-endpoint URL --claim sub=id [--claim local=upstream]... [--emails-endpoint URL]) [--name NAME] [--slug SLUG] [--scope "openid email profile"] [--domain example.com]... [--tenant TENANT_ID]... (microsoft) [--provision on|off] (default off) [--link verified-email|never] [--trust-mfa on|off] (default off: an id_token with amr mfa then satisfies the local second factor) [--store-tokens on|off] (default off: the upstream tokens are then kept, sealed, per linked identity) [--token-endpoint-auth-method client_secret_basic|client_secret_post]',
  async run(args, core) {
    const { values } = parseArgs({ args, options: createOptions, strict: true });
    if (!values['client-id']) throw new UsageError('--client-id is required (the client id the upstream issued to this server)');
    if (!values['client-secret-env'])
      throw new UsageError('--client-secret-env is required: the NAME of the environment variable the server reads the client secret from (never the secret)');
    const preset = oneOf('preset', values.preset, PRESETS) as IdentityProviderPreset | undefined;
    if (!preset && !values.issuer && values.kind !== 'oauth2')
      throw new UsageError('give --issuer URL (OpenID Connect), --preset, or --kind oauth2 with its endpoints');
    const provision = oneOf('provision', values.provision, ['on', 'off'] as const);
    const trustMfa = oneOf('trust-mfa', values['trust-mfa'], ['on', 'off'] as const);
    const storeTokens = oneOf('store-tokens', values['store-tokens'], ['on', 'off'] as const);
    const input: IdentityProviderInput = {
      clientId: values['client-id'],
      clientSecretEnv: values['client-secret-env'],
      ...(values.name !== undefined ? { name: values.name } : {}),
      ...(values.slug !== undefined ? { slug: values.slug } : {}),
      ...(values.kind !== undefined ? { kind: oneOf('kind', values.kind, ['oidc', 'oauth2'] as const)! } : {}),
      ...(preset ? { preset } : {}),
      ...(values.issuer !== undefined ? { issuer: values.issuer } : {}),
      ...(values.scope !== undefined ? { scopes: values.scope.split(/\s+/).filter(Boolean) } : {}),
      ...(values.domain ? { domains: values.domain } : {}),
      ...(values.tenant ? { tenants: values.tenant } : {}),
      ...(provision ? { provision: provision === 'on' } : {}),
      ...(trustMfa ? { trustMfa: trustMfa === 'on' } : {}),
      ...(storeTokens ? { storeTokens: storeTokens === 'on' } : {}),
      ...(values.link !== undefined ? { link: oneOf('link', values.link, ['verified-email', 'never'] as const)! } : {}),
      ...(values['authorization-endpoint'] !== undefined ? { authorizationEndpoint: values['authorization-endpoint'] } : {}),
      ...(values['token-endpoint'] !== undefined ? { tokenEndpoint: values['token-endpoint'] } : {}),
      ...(values['userinfo-endpoint'] !== undefined ? { userinfoEndpoint: values['userinfo-endpoint'] } : {}),
      ...(values['emails-endpoint'] !== undefined ? { emailsEndpoint: values['emails-endpoint'] } : {}),
      ...(values['token-endpoint-auth-method'] !== undefined
        ? {
            tokenEndpointAuthMethod: oneOf('token-endpoint-auth-method', values['token-endpoint-auth-method'], [
              'client_secret_basic',
              'client_secret_post',
            ] as const)!,
          }
        : {}),
      ...(values.claim ? { claims: claimMappings(values.claim)! } : {}),
    };
    const created = await asUsage(() => createIdentityProviderRecord(services(core), input, { actor: cliActor() }));
    const view = identityProviderView(created, core.config.ISSUER);
    const warning = process.env[created.clientSecretEnv]
      ? {}
      : { warning: `${created.clientSecretEnv} is not set in this environment: the server must have it to complete sign-ins` };
    return { ...view, ...warning };
  },
};

export const identityProvidersUpdateCommand: Command = {
  name: 'identity-providers update',
  usage:
    'identity-providers update SLUG_OR_ID [--store-tokens on|off] (off deletes every stored upstream token of it) [--trust-mfa on|off] [--provision on|off] [--link verified-email|never]',
  async run(args, core) {
    const { values, positionals } = parseArgs({
      args,
      options: { 'store-tokens': { type: 'string' }, 'trust-mfa': { type: 'string' }, provision: { type: 'string' }, link: { type: 'string' } },
      strict: true,
      allowPositionals: true,
    });
    if (positionals.length !== 1) throw new UsageError('usage: gatehouse identity-providers update SLUG_OR_ID [--store-tokens on|off] ...');
    const onOff = (flag: string, value: string | undefined) => {
      const chosen = oneOf(flag, value, ['on', 'off'] as const);
      return chosen === undefined ? undefined : chosen === 'on';
    };
    const switches = {
      ...(values['store-tokens'] !== undefined ? { storeTokens: onOff('store-tokens', values['store-tokens'])! } : {}),
      ...(values['trust-mfa'] !== undefined ? { trustMfa: onOff('trust-mfa', values['trust-mfa'])! } : {}),
      ...(values.provision !== undefined ? { provision: onOff('provision', values.provision)! } : {}),
      ...(values.link !== undefined ? { link: oneOf('link', values.link, ['verified-email', 'never'] as const)! } : {}),
    };
    if (Object.keys(switches).length === 0) throw new UsageError('nothing to update: give --store-tokens, --trust-mfa, --provision or --link');
    const updated = await asUsage(() => updateIdentityProviderSwitches(services(core), positionals[0]!, switches, { actor: cliActor() }));
    return identityProviderView(updated, core.config.ISSUER);
  },
};

export const identityProvidersListCommand: Command = {
  name: 'identity-providers list',
  usage: 'identity-providers list',
  async run(args, core) {
    parseArgs({ args, options: {}, strict: true });
    const all = await listIdentityProviderRecords(core, { limit: MAX_IDENTITY_PROVIDERS });
    return { identity_providers: all.map((p) => identityProviderView(p, core.config.ISSUER)) };
  },
};

function target(args: string[], command: string): string {
  const { positionals } = parseArgs({ args, options: {}, strict: true, allowPositionals: true });
  if (positionals.length !== 1) throw new UsageError(`usage: gatehouse ${command} [--] SLUG_OR_ID`);
  return positionals[0]!;
}

export const identityProvidersShowCommand: Command = {
  name: 'identity-providers show',
  usage: 'identity-providers show [--] SLUG_OR_ID',
  async run(args, core) {
    const found = await asUsage(() => findIdentityProviderRecord(core, target(args, 'identity-providers show')));
    return identityProviderView(found, core.config.ISSUER);
  },
};

export const identityProvidersDeleteCommand: Command = {
  name: 'identity-providers delete',
  usage: 'identity-providers delete [--] SLUG_OR_ID (its users stay; their links to it go)',
  async run(args, core) {
    const { slug } = await asUsage(() =>
      deleteIdentityProviderRecord(services(core), target(args, 'identity-providers delete'), undefined, { actor: cliActor() }),
    );
    return { deleted: slug };
  },
};

export const identityProvidersDisableCommand: Command = {
  name: 'identity-providers disable',
  usage: 'identity-providers disable [--] SLUG_OR_ID',
  async run(args, core) {
    const disabled = await asUsage(() =>
      disableIdentityProviderRecord(services(core), target(args, 'identity-providers disable'), undefined, { actor: cliActor() }),
    );
    return { disabled: disabled.slug };
  },
};
