// Upstream identity providers (migrations/0500_identity_providers.sql, docs/federation.md). The client
// secret is not here: only the name of the environment variable holding it.
import { sql, type Selectable } from 'kysely';
import type { Db } from '../driver/database.js';
import type { IdentityProvidersTable } from '../driver/schema.js';

export type IdentityProviderKind = 'oidc' | 'oauth2';
export type IdentityProviderPreset = 'google' | 'microsoft' | 'github' | 'gitlab';
export type LinkPolicy = 'verified-email' | 'never';

export interface IdentityProvider {
  id: string;
  slug: string;
  name: string;
  kind: IdentityProviderKind;
  preset: IdentityProviderPreset | null;
  /** OIDC issuer (may hold `{tenantid}` for Microsoft's multi-tenant endpoints); oauth2: the RFC 9207 `iss`, or null. */
  issuer: string | null;
  authorizationEndpoint: string;
  tokenEndpoint: string;
  userinfoEndpoint: string | null;
  /** GitHub-style list of {email, primary, verified}. */
  emailsEndpoint: string | null;
  jwksUri: string | null;
  /** The upstream puts `iss` in its authorization responses (RFC 9207): then it is required and checked. */
  authorizationResponseIss: boolean;
  clientId: string;
  clientSecretEnv: string;
  tokenEndpointAuthMethod: 'client_secret_basic' | 'client_secret_post';
  scopes: string[];
  domains: string[];
  /** Microsoft multi-tenant: the tenant ids allowed (empty = any). */
  tenants: string[];
  /** Local claim → upstream member (oauth2 kind). */
  claims: Record<string, string>;
  provision: boolean;
  link: LinkPolicy;
  /** Its id_token's amr `mfa` (or an MFA acr) satisfies the local account's own second factor (--trust-mfa). */
  trustMfa: boolean;
  /** The upstream's tokens are kept (sealed) per federated identity (--store-tokens; migration 0770). */
  storeTokens: boolean;
  enabled: boolean;
  version: number;
  createdAt: Date;
  updatedAt: Date;
}

/** `trustMfa`, `storeTokens` absent: off. */
export type NewIdentityProvider = Omit<IdentityProvider, 'id' | 'enabled' | 'version' | 'createdAt' | 'updatedAt' | 'trustMfa' | 'storeTokens'> & {
  trustMfa?: boolean;
  storeTokens?: boolean;
};
/** Everything but the id and the slug (the slug is in the redirect URI registered upstream). */
export type IdentityProviderChanges = Omit<IdentityProvider, 'id' | 'slug' | 'version' | 'createdAt' | 'updatedAt' | 'trustMfa' | 'storeTokens'> & {
  trustMfa?: boolean;
  storeTokens?: boolean;
};
export type VersionedWrite<T> = { written: T } | 'stale' | 'missing';

const toClaims = (value: unknown): Record<string, string> =>
  Object.fromEntries(
    Object.entries(value && typeof value === 'object' && !Array.isArray(value) ? value : {}).filter((e): e is [string, string] => typeof e[1] === 'string'),
  );

function fromRow(r: Selectable<IdentityProvidersTable>): IdentityProvider {
  return {
    id: r.id,
    slug: r.slug,
    name: r.name,
    kind: r.kind as IdentityProviderKind,
    preset: r.preset as IdentityProviderPreset | null,
    issuer: r.issuer,
    authorizationEndpoint: r.authorization_endpoint,
    tokenEndpoint: r.token_endpoint,
    userinfoEndpoint: r.userinfo_endpoint,
    emailsEndpoint: r.emails_endpoint,
    jwksUri: r.jwks_uri,
    authorizationResponseIss: r.authorization_response_iss,
    clientId: r.client_id,
    clientSecretEnv: r.client_secret_env,
    tokenEndpointAuthMethod: r.token_endpoint_auth_method as IdentityProvider['tokenEndpointAuthMethod'],
    scopes: r.scopes,
    domains: r.domains,
    tenants: r.tenants,
    claims: toClaims(r.claims),
    provision: r.provision,
    link: r.link as LinkPolicy,
    trustMfa: r.trust_mfa,
    storeTokens: r.store_tokens,
    enabled: r.enabled,
    version: r.version,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
  };
}

const columns = (p: IdentityProviderChanges) => ({
  name: p.name,
  kind: p.kind,
  preset: p.preset,
  issuer: p.issuer,
  authorization_endpoint: p.authorizationEndpoint,
  token_endpoint: p.tokenEndpoint,
  userinfo_endpoint: p.userinfoEndpoint,
  emails_endpoint: p.emailsEndpoint,
  jwks_uri: p.jwksUri,
  authorization_response_iss: p.authorizationResponseIss,
  client_id: p.clientId,
  client_secret_env: p.clientSecretEnv,
  token_endpoint_auth_method: p.tokenEndpointAuthMethod,
  scopes: p.scopes,
  domains: p.domains,
  tenants: p.tenants,
  claims: JSON.stringify(p.claims),
  provision: p.provision,
  link: p.link,
  trust_mfa: p.trustMfa ?? false,
  store_tokens: p.storeTokens ?? false,
  enabled: p.enabled,
});

/** Ids are uuids and slugs are short: anything else (a NUL byte, a long string) names no provider. */
const plausible = (key: string) => key.length <= 64 && !key.includes('\u0000');

export interface IdentityProvidersRepository {
  /** Undefined (nothing written) when the slug is taken. */
  create(provider: NewIdentityProvider): Promise<IdentityProvider | undefined>;
  /** By id or by slug. */
  find(idOrSlug: string): Promise<IdentityProvider | undefined>;
  /** Rows strictly after the (created_at, id) position, oldest first. */
  page(request: { after?: { createdAt: Date; id: string }; limit: number }): Promise<IdentityProvider[]>;
  /** Every provider a login page may offer, oldest first. */
  listEnabled(limit: number): Promise<IdentityProvider[]>;
  updateIfVersion(id: string, changes: IdentityProviderChanges, expectedVersion: number | undefined, now: Date): Promise<VersionedWrite<IdentityProvider>>;
  deleteIfVersion(id: string, expectedVersion: number | undefined): Promise<VersionedWrite<{ slug: string }>>;
}

export function identityProvidersRepository(db: Db): IdentityProvidersRepository {
  const exists = async (id: string) => (await db.selectFrom('identity_providers').select('id').where('id', '=', id).executeTakeFirst()) !== undefined;
  return {
    async create(provider) {
      const row = await db
        .insertInto('identity_providers')
        .values({ ...columns({ ...provider, enabled: true }), slug: provider.slug })
        .onConflict((oc) => oc.column('slug').doNothing())
        .returningAll()
        .executeTakeFirst();
      return row ? fromRow(row) : undefined;
    },
    async find(idOrSlug) {
      if (!plausible(idOrSlug)) return undefined;
      const row = await db
        .selectFrom('identity_providers')
        .selectAll()
        .where((eb) => eb.or([eb('id', '=', idOrSlug), eb('slug', '=', idOrSlug)]))
        .executeTakeFirst();
      return row ? fromRow(row) : undefined;
    },
    async page({ after, limit }) {
      let query = db.selectFrom('identity_providers').selectAll();
      if (after) {
        query = query.where((eb) => eb.or([eb('created_at', '>', after.createdAt), eb.and([eb('created_at', '=', after.createdAt), eb('id', '>', after.id)])]));
      }
      return (await query.orderBy('created_at').orderBy('id').limit(limit).execute()).map(fromRow);
    },
    async listEnabled(limit) {
      return (await db.selectFrom('identity_providers').selectAll().where('enabled', '=', true).orderBy('created_at').orderBy('id').limit(limit).execute()).map(
        fromRow,
      );
    },
    async updateIfVersion(id, changes, expectedVersion, now) {
      if (!plausible(id)) return 'missing';
      let query = db
        .updateTable('identity_providers')
        .set({ ...columns(changes), updated_at: now, version: sql`version + 1` })
        .where('id', '=', id);
      if (expectedVersion !== undefined) query = query.where('version', '=', expectedVersion);
      const row = await query.returningAll().executeTakeFirst();
      // store_tokens off (or left off): nothing of the upstream tokens stays. The provider's row is locked by the
      // update, so a sign-in storing tokens at this moment waits and then sees it off (federated-identity-tokens-repository.ts).
      if (row && !row.store_tokens) await db.deleteFrom('federated_identity_tokens').where('provider_id', '=', id).execute();
      if (row) return { written: fromRow(row) };
      return (await exists(id)) ? 'stale' : 'missing';
    },
    async deleteIfVersion(id, expectedVersion) {
      if (!plausible(id)) return 'missing';
      let query = db.deleteFrom('identity_providers').where('id', '=', id);
      if (expectedVersion !== undefined) query = query.where('version', '=', expectedVersion);
      const row = await query.returning('slug').executeTakeFirst();
      if (!row) return (await exists(id)) ? 'stale' : 'missing';
      // A client that offered only this provider now offers none (never, silently, all of them).
      await db
        .updateTable('clients')
        .set({ identity_providers: sql`array_remove(identity_providers, ${row.slug})` })
        .where(sql<boolean>`${row.slug} = any(identity_providers)`)
        .execute();
      return { written: { slug: row.slug } };
    },
  };
}
