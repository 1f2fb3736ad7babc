// Upstream identity-provider administration, written once for the CLI (`gatehouse identity-providers ...`,
// `gatehouse apply`) and the admin API (/admin/v1/identity-providers): presets, discovery of an OpenID
// provider's endpoints (through the outbound policy), the rules on slugs, endpoints, scopes, domains and
// claim mappings, version-guarded writes (If-Match), and one audit event per change in the same
// transaction. The client secret is never stored: only the name of the environment variable holding it
// (docs/federation.md).
import type { Clock } from '../clock.js';
import type { Config } from '../config.js';
import type { Store } from '../storage/store.js';
import type { AuditEventInput } from '../audit/audit-events.js';
import type { AuditSink } from '../audit/audit-sink.js';
import { checkedTarget, OutboundRefused, type OutboundPolicy } from '../http/outbound/outbound-policy.js';
import { federationRedirectUri } from '../federation/callback-uri.js';
import { discoverProvider } from '../federation/discovery.js';
import { FederationFailure } from '../federation/errors.js';
import { microsoftTenantIssuer, MICROSOFT_MULTI_TENANT_ISSUER, presetOf, TENANT_ID } from '../federation/presets.js';
import { MAPPABLE_CLAIMS } from '../federation/upstream-claims.js';
import { DEFAULT_UPSTREAM_LIMITS, type UpstreamLimits } from '../federation/upstream-fetch.js';
import type {
  IdentityProvider,
  IdentityProviderKind,
  IdentityProviderPreset,
  LinkPolicy,
  NewIdentityProvider,
} from '../storage/repositories/identity-providers-repository.js';
import type { ActingAs } from './clients-service.js';
import { AdminRuleError } from './rule-error.js';

export interface IdentityProviderServiceDeps {
  store: Store;
  clock: Clock;
  config: Pick<Config, 'ISSUER'>;
  /** Where discovery (and, at use, every upstream call) may go: Core.outbound. */
  outbound: OutboundPolicy;
  audit: AuditSink;
  limits?: UpstreamLimits;
}

/** What an operator gives (CLI flags, an API document, a configuration-file entry); the rest is discovered or preset. */
export interface IdentityProviderInput {
  name?: string;
  slug?: string;
  kind?: IdentityProviderKind;
  preset?: IdentityProviderPreset;
  issuer?: string;
  clientId: string;
  clientSecretEnv: string;
  scopes?: string[];
  domains?: string[];
  tenants?: string[];
  provision?: boolean;
  link?: LinkPolicy;
  authorizationEndpoint?: string;
  tokenEndpoint?: string;
  userinfoEndpoint?: string;
  emailsEndpoint?: string;
  tokenEndpointAuthMethod?: 'client_secret_basic' | 'client_secret_post';
  claims?: Record<string, string>;
  /** Its id_token's amr `mfa` satisfies the local second factor (OpenID Connect only; default false). */
  trustMfa?: boolean;
  /** The upstream's tokens are kept, sealed, per federated identity (default false; off deletes them). */
  storeTokens?: boolean;
  enabled?: boolean;
}

export const MAX_IDENTITY_PROVIDERS = 100;
const SLUG = /^[a-z0-9][a-z0-9-]{0,62}$/;
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,127}$/;
const DOMAIN = /^(?=.{1,253}$)([a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$/;
const SCOPE = /^[\x21\x23-\x5b\x5d-\x7e]{1,128}$/;

const invalid = (field: string, message: string, value?: string) => new AdminRuleError('invalid', message, field, value);

/** A name's slug: lower case, dashes between words ("Acme SSO" → "acme-sso"). */
const slugOf = (name: string): string =>
  name
    .toLowerCase()
    .normalize('NFKD')
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 63)
    .replace(/-+$/, '');

/** An endpoint must be one the outbound policy lets us call (https, not our own network): checked now, and again at every call. */
async function checkEndpoint(field: string, value: string, outbound: OutboundPolicy): Promise<string> {
  if (value.length > 2048) throw invalid(field, 'must have at most 2048 characters');
  try {
    await checkedTarget(value, outbound);
  } catch (error) {
    if (error instanceof OutboundRefused) throw invalid(field, `is refused: ${error.message}`, value.slice(0, 200));
    throw error;
  }
  return value;
}

function checkClaims(claims: Record<string, string>, kind: IdentityProviderKind): Record<string, string> {
  for (const [local, upstream] of Object.entries(claims)) {
    if (!(MAPPABLE_CLAIMS as readonly string[]).includes(local))
      throw invalid('claims', `${JSON.stringify(local.slice(0, 64))} is not a claim a mapping may fill (${MAPPABLE_CLAIMS.join(', ')})`);
    if (!/^[A-Za-z0-9_.:-]{1,128}$/.test(upstream))
      throw invalid(
        'claims',
        `${local}: ${JSON.stringify(upstream.slice(0, 64))} is not an upstream member name (letters, digits, _ . : -; dots go into nested objects)`,
      );
  }
  if (kind === 'oauth2' && !claims.sub)
    throw invalid('claims', 'an oauth2 provider needs a mapping for sub (e.g. sub=id): the upstream member that identifies the user for good');
  return claims;
}

function checkDomains(domains: readonly string[]): string[] {
  const result = [...new Set(domains.map((d) => d.trim().toLowerCase().replace(/^@/, '')))];
  for (const d of result) if (!DOMAIN.test(d)) throw invalid('domains', 'is not a domain name', d.slice(0, 200));
  if (result.length > 50) throw invalid('domains', 'at most 50 domains');
  return result;
}

/** The stored record this input describes: presets applied, an OpenID provider's endpoints discovered. */
export async function resolveIdentityProvider(deps: IdentityProviderServiceDeps, input: IdentityProviderInput): Promise<NewIdentityProvider> {
  const preset = input.preset ? presetOf(input.preset) : undefined;
  const kind = input.kind ?? preset?.kind ?? 'oidc';
  if (preset && preset.kind !== kind) throw invalid('kind', `the ${input.preset} preset is ${preset.kind}`);
  const name = (input.name ?? preset?.name ?? '').trim();
  if (!name || name.length > 100) throw invalid('name', 'is required (at most 100 characters; the login page shows "Continue with NAME")');
  const slug = input.slug ?? slugOf(name);
  if (!SLUG.test(slug))
    throw invalid('slug', 'must be 1-63 lower-case letters, digits and dashes, starting with a letter or digit (it is in the redirect URI)', slug.slice(0, 64));
  if (!input.clientId || input.clientId.length > 512) throw invalid('client_id', 'is required (the client id the upstream issued)');
  if (!ENV_NAME.test(input.clientSecretEnv))
    throw invalid(
      'client_secret_env',
      'must be the NAME of an environment variable holding the client secret (the secret itself is never stored)',
      input.clientSecretEnv.slice(0, 64),
    );
  const tenants = [...new Set(input.tenants ?? [])];
  if (tenants.length > 0 && input.preset !== 'microsoft') throw invalid('tenants', 'only for the microsoft preset');
  for (const t of tenants) if (!TENANT_ID.test(t)) throw invalid('tenants', 'must be a tenant id (a GUID, as in the tid claim)', t.slice(0, 64));
  const scopes = input.scopes ?? preset?.scopes ?? (kind === 'oidc' ? ['openid', 'email', 'profile'] : []);
  for (const s of scopes) if (!SCOPE.test(s)) throw invalid('scopes', 'is not a scope', s.slice(0, 64));
  if (kind === 'oidc' && !scopes.includes('openid')) throw invalid('scopes', 'an OpenID Connect provider is asked for the openid scope');
  if (kind === 'oauth2' && scopes.length === 0) throw invalid('scopes', 'name the scopes that read the user (e.g. "read:user user:email")');
  const common = {
    slug,
    name,
    kind,
    preset: input.preset ?? null,
    clientId: input.clientId,
    clientSecretEnv: input.clientSecretEnv,
    scopes,
    domains: checkDomains(input.domains ?? []),
    tenants: tenants.length === 1 ? [] : tenants,
    provision: input.provision ?? false,
    link: input.link ?? 'verified-email',
    trustMfa: input.trustMfa ?? false,
    storeTokens: input.storeTokens ?? false,
  } as const;
  // Only an id_token says how the user signed in upstream; a plain OAuth 2.0 user document does not.
  if (common.trustMfa && kind !== 'oidc')
    throw invalid('trust_mfa', 'only an OpenID Connect provider can be trusted for the second factor (its id_token says how the user signed in)');

  if (kind === 'oidc') {
    if (input.authorizationEndpoint || input.tokenEndpoint || input.emailsEndpoint)
      throw invalid('authorization_endpoint', "an OpenID Connect provider's endpoints come from its discovery document");
    // Microsoft: one tenant → that tenant's own issuer; none or several → the multi-tenant issuer, checked per token.
    const issuer =
      input.preset === 'microsoft' && !input.issuer
        ? tenants.length === 1
          ? microsoftTenantIssuer(tenants[0]!)
          : MICROSOFT_MULTI_TENANT_ISSUER
        : (input.issuer ?? (preset?.kind === 'oidc' ? preset.issuer : undefined));
    if (!issuer) throw invalid('issuer', 'is required for an OpenID Connect provider (its discovery document is read from it)');
    if (issuer !== MICROSOFT_MULTI_TENANT_ISSUER) await checkEndpoint('issuer', issuer, deps.outbound);
    const discovered = await discoverProvider(issuer, { outbound: deps.outbound, limits: deps.limits ?? DEFAULT_UPSTREAM_LIMITS }).catch((error: unknown) => {
      throw error instanceof FederationFailure ? invalid('issuer', `discovery failed: ${error.detail}`) : error;
    });
    for (const [field, value] of [
      ['authorization_endpoint', discovered.authorizationEndpoint],
      ['token_endpoint', discovered.tokenEndpoint],
      ['jwks_uri', discovered.jwksUri],
      ['userinfo_endpoint', discovered.userinfoEndpoint],
    ] as const) {
      if (value) await checkEndpoint(field, value, deps.outbound);
    }
    return {
      ...common,
      issuer: discovered.issuer,
      authorizationEndpoint: discovered.authorizationEndpoint,
      tokenEndpoint: discovered.tokenEndpoint,
      userinfoEndpoint: discovered.userinfoEndpoint,
      emailsEndpoint: null,
      jwksUri: discovered.jwksUri,
      authorizationResponseIss: discovered.authorizationResponseIss,
      tokenEndpointAuthMethod: input.tokenEndpointAuthMethod ?? discovered.tokenEndpointAuthMethod,
      claims: checkClaims(input.claims ?? {}, kind),
    };
  }
  const oauth2 = preset?.kind === 'oauth2' ? preset : undefined;
  const endpoint = async (field: string, value: string | undefined, required: boolean) => {
    if (value === undefined) {
      if (required) throw invalid(field, 'is required for an oauth2 provider');
      return null;
    }
    return checkEndpoint(field, value, deps.outbound);
  };
  return {
    ...common,
    issuer: input.issuer ?? null,
    authorizationEndpoint: (await endpoint('authorization_endpoint', input.authorizationEndpoint ?? oauth2?.authorizationEndpoint, true))!,
    tokenEndpoint: (await endpoint('token_endpoint', input.tokenEndpoint ?? oauth2?.tokenEndpoint, true))!,
    userinfoEndpoint: await endpoint('userinfo_endpoint', input.userinfoEndpoint ?? oauth2?.userinfoEndpoint, true),
    emailsEndpoint: await endpoint('emails_endpoint', input.emailsEndpoint ?? oauth2?.emailsEndpoint ?? undefined, false),
    jwksUri: null,
    authorizationResponseIss: false,
    tokenEndpointAuthMethod: input.tokenEndpointAuthMethod ?? oauth2?.tokenEndpointAuthMethod ?? 'client_secret_basic',
    claims: checkClaims({ ...(oauth2?.claims ?? {}), ...(input.claims ?? {}) }, kind),
  };
}

/** The representation both faces show: everything but a secret (there is none stored), plus the redirect URI to register upstream. */
export function identityProviderView(p: IdentityProvider, issuer: string): Record<string, unknown> {
  return {
    id: p.id,
    slug: p.slug,
    name: p.name,
    kind: p.kind,
    ...(p.preset ? { preset: p.preset } : {}),
    redirect_uri: federationRedirectUri(issuer, p.slug),
    issuer: p.issuer,
    authorization_endpoint: p.authorizationEndpoint,
    token_endpoint: p.tokenEndpoint,
    userinfo_endpoint: p.userinfoEndpoint,
    ...(p.emailsEndpoint ? { emails_endpoint: p.emailsEndpoint } : {}),
    ...(p.jwksUri ? { jwks_uri: p.jwksUri } : {}),
    authorization_response_iss_parameter_supported: p.authorizationResponseIss,
    client_id: p.clientId,
    client_secret_env: p.clientSecretEnv,
    token_endpoint_auth_method: p.tokenEndpointAuthMethod,
    scopes: p.scopes,
    domains: p.domains,
    ...(p.tenants.length > 0 ? { tenants: p.tenants } : {}),
    claims: p.claims,
    provision: p.provision,
    link: p.link,
    trust_mfa: p.trustMfa,
    store_tokens: p.storeTokens,
    enabled: p.enabled,
  };
}

const changeEvent = (type: AuditEventInput['type'], id: string, as: ActingAs, changedFields: readonly string[] = []): AuditEventInput => ({
  type,
  actor: as.actor,
  resource: 'identity_provider',
  resourceId: id,
  changedFields,
  ...(as.traceId ? { traceId: as.traceId } : {}),
});

const notFound = (idOrSlug: string) => new AdminRuleError('not-found', `no identity provider ${JSON.stringify(idOrSlug.slice(0, 100))}`);

/** Home-realm discovery must name one provider per domain. */
async function refuseClaimedDomains(store: Store, domains: readonly string[], except: string | null): Promise<void> {
  if (domains.length === 0) return;
  for (const other of await store.identityProviders.page({ limit: MAX_IDENTITY_PROVIDERS })) {
    if (other.id === except) continue;
    const taken = other.domains.find((d) => domains.includes(d));
    if (taken) throw new AdminRuleError('conflict', `the domain ${taken} is already claimed by identity provider ${other.slug}`, 'domains', taken);
  }
}

export async function createIdentityProviderRecord(deps: IdentityProviderServiceDeps, input: IdentityProviderInput, as: ActingAs): Promise<IdentityProvider> {
  // Discovery happens before the transaction: no database connection waits on an upstream.
  const resolved = await resolveIdentityProvider(deps, input);
  return createResolvedIdentityProvider(deps, resolved, input.enabled, as);
}

/** Stores a provider already resolved (`gatehouse apply` resolves every entry before its transaction). */
export async function createResolvedIdentityProvider(
  deps: IdentityProviderServiceDeps,
  resolved: NewIdentityProvider,
  enabled: boolean | undefined,
  as: ActingAs,
): Promise<IdentityProvider> {
  return deps.store.transaction(async (tx) => {
    const repository = tx.identityProviders;
    if ((await repository.page({ limit: MAX_IDENTITY_PROVIDERS })).length >= MAX_IDENTITY_PROVIDERS)
      throw new AdminRuleError('conflict', `at most ${MAX_IDENTITY_PROVIDERS} identity providers`);
    await refuseClaimedDomains(tx, resolved.domains, null);
    const created = await repository.create(resolved);
    if (!created) throw new AdminRuleError('conflict', `the slug ${resolved.slug} is taken (choose another with --slug)`, 'slug', resolved.slug);
    const stored = enabled === false ? await disable(tx, created, deps.clock) : created;
    await deps.audit.emit(changeEvent('admin.identity_provider.created', stored.id, as, Object.keys(identityProviderView(stored, deps.config.ISSUER)).sort()), {
      tx,
    });
    return stored;
  });
}

async function disable(tx: Store, provider: IdentityProvider, clock: Clock): Promise<IdentityProvider> {
  const result = await tx.identityProviders.updateIfVersion(provider.id, { ...provider, enabled: false }, provider.version, new Date(clock.now()));
  if (typeof result === 'string') throw new AdminRuleError('stale', 'the identity provider changed while it was written');
  return result.written;
}

export async function findIdentityProviderRecord(deps: Pick<IdentityProviderServiceDeps, 'store'>, idOrSlug: string): Promise<IdentityProvider> {
  const found = await deps.store.identityProviders.find(idOrSlug);
  if (!found) throw notFound(idOrSlug);
  return found;
}

export function listIdentityProviderRecords(
  deps: Pick<IdentityProviderServiceDeps, 'store'>,
  page: { after?: { createdAt: Date; id: string }; limit: number },
): Promise<IdentityProvider[]> {
  return deps.store.identityProviders.page(page);
}

/**
 * Replaces a provider's settings (re-reading an OpenID provider's discovery document), only while it is
 * at `expectedVersion` (any when undefined: the CLI and `apply`). The slug never changes: it is in the
 * redirect URI registered upstream.
 */
export async function replaceIdentityProviderRecord(
  deps: IdentityProviderServiceDeps,
  idOrSlug: string,
  input: IdentityProviderInput,
  expectedVersion: number | undefined,
  as: ActingAs,
): Promise<IdentityProvider> {
  const current = await findIdentityProviderRecord(deps, idOrSlug);
  if (input.slug !== undefined && input.slug !== current.slug)
    throw invalid('slug', 'cannot change (it is in the redirect URI registered upstream); create a new provider instead');
  const resolved = await resolveIdentityProvider(deps, { ...input, slug: current.slug });
  return replaceResolvedIdentityProvider(deps, current, resolved, input.enabled, expectedVersion, as);
}

/** Writes a provider already resolved over `current` (its slug kept), only while it is at `expectedVersion`. */
export async function replaceResolvedIdentityProvider(
  deps: IdentityProviderServiceDeps,
  current: IdentityProvider,
  resolved: NewIdentityProvider,
  enabled: boolean | undefined,
  expectedVersion: number | undefined,
  as: ActingAs,
): Promise<IdentityProvider> {
  if (resolved.slug !== current.slug) throw invalid('slug', 'cannot change (it is in the redirect URI registered upstream); create a new provider instead');
  return deps.store.transaction(async (tx) => {
    await refuseClaimedDomains(tx, resolved.domains, current.id);
    const result = await tx.identityProviders.updateIfVersion(
      current.id,
      { ...resolved, enabled: enabled ?? current.enabled },
      expectedVersion,
      new Date(deps.clock.now()),
    );
    if (result === 'missing') throw notFound(current.slug);
    if (result === 'stale') throw new AdminRuleError('stale', 'the identity provider changed since it was read');
    const before = identityProviderView(current, deps.config.ISSUER);
    const after = identityProviderView(result.written, deps.config.ISSUER);
    const changed = Object.keys({ ...before, ...after })
      .filter((k) => JSON.stringify(before[k]) !== JSON.stringify(after[k]))
      .sort();
    await deps.audit.emit(changeEvent('admin.identity_provider.updated', current.id, as, changed), { tx });
    return result.written;
  });
}

/** The switches an operator flips on a provider without restating it (`gatehouse identity-providers update`). */
export interface IdentityProviderSwitches {
  storeTokens?: boolean;
  trustMfa?: boolean;
  provision?: boolean;
  link?: LinkPolicy;
}

/**
 * Flips switches of a provider, keeping everything else (no discovery is re-read): the same version-guarded
 * write and audit event as a replacement. Turning store_tokens off deletes every stored upstream token of it
 * (identity-providers-repository.ts, in the same transaction).
 */
export async function updateIdentityProviderSwitches(
  deps: IdentityProviderServiceDeps,
  idOrSlug: string,
  switches: IdentityProviderSwitches,
  as: ActingAs,
): Promise<IdentityProvider> {
  const current = await findIdentityProviderRecord(deps, idOrSlug);
  const next = { ...current, ...switches };
  if (next.trustMfa && next.kind !== 'oidc')
    throw invalid('trust_mfa', 'only an OpenID Connect provider can be trusted for the second factor (its id_token says how the user signed in)');
  const { id: _id, enabled, version, createdAt: _c, updatedAt: _u, ...resolved } = next;
  return replaceResolvedIdentityProvider(deps, current, resolved, enabled, version, as);
}

/** Disables a provider: it is offered nowhere and its callbacks complete nothing; its links stay. */
export async function disableIdentityProviderRecord(
  deps: IdentityProviderServiceDeps,
  idOrSlug: string,
  expectedVersion: number | undefined,
  as: ActingAs,
): Promise<IdentityProvider> {
  return deps.store.transaction(async (tx) => {
    const current = await findIdentityProviderRecord({ store: tx }, idOrSlug);
    if (!current.enabled) return current;
    const result = await tx.identityProviders.updateIfVersion(current.id, { ...current, enabled: false }, expectedVersion, new Date(deps.clock.now()));
    if (result === 'missing') throw notFound(idOrSlug);
    if (result === 'stale') throw new AdminRuleError('stale', 'the identity provider changed since it was read');
    await deps.audit.emit(changeEvent('admin.identity_provider.updated', current.id, as, ['enabled']), { tx });
    return result.written;
  });
}

/** Deletes a provider and, with it, every federated identity linked through it (the users stay). */
export async function deleteIdentityProviderRecord(
  deps: IdentityProviderServiceDeps,
  idOrSlug: string,
  expectedVersion: number | undefined,
  as: ActingAs,
): Promise<{ slug: string }> {
  return deps.store.transaction(async (tx) => {
    const current = await findIdentityProviderRecord({ store: tx }, idOrSlug);
    const result = await tx.identityProviders.deleteIfVersion(current.id, expectedVersion);
    if (result === 'missing') throw notFound(idOrSlug);
    if (result === 'stale') throw new AdminRuleError('stale', 'the identity provider changed since it was read');
    await deps.audit.emit(changeEvent('admin.identity_provider.deleted', current.id, as), { tx });
    return result.written;
  });
}
