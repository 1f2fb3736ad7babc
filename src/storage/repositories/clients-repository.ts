// OAuth clients as registered (CLI or RFC 7591). Secrets never leave as plaintext: only their hash is kept.
import { sql, type Selectable } from 'kysely';
import type { Clock } from '../../clock.js';
import type { Db } from '../driver/database.js';
import { lockTask } from './task-locks.js';
import { deleteGrantOwner } from './grants-repository.js';
import type { ClientsTable } from '../driver/schema.js';

export type ClientType = 'confidential' | 'public';
export type TokenEndpointAuthMethod = 'client_secret_basic' | 'client_secret_post' | 'private_key_jwt' | 'none';
export const TOKEN_ENDPOINT_AUTH_METHODS: readonly TokenEndpointAuthMethod[] = ['client_secret_basic', 'client_secret_post', 'private_key_jwt', 'none'];
/** RFC 8628 3.4: the grant type of the device flow. */
export const DEVICE_CODE_GRANT = 'urn:ietf:params:oauth:grant-type:device_code';
/** RFC 8693 2.1: the grant type of token exchange. */
export const TOKEN_EXCHANGE_GRANT = 'urn:ietf:params:oauth:grant-type:token-exchange';
export const GRANT_TYPES = ['authorization_code', 'refresh_token', 'client_credentials', DEVICE_CODE_GRANT, TOKEN_EXCHANGE_GRANT] as const;
export type GrantType = (typeof GRANT_TYPES)[number];

/** Clients nobody registered by hand: read from a Client ID Metadata Document, or registered anonymously. */
export type ClientProvenance = 'metadata_document' | 'self_registered';

export interface Client {
  id: string;
  name: string;
  type: ClientType;
  secretHash: string | null;
  authMethod: TokenEndpointAuthMethod;
  redirectUris: string[];
  postLogoutRedirectUris: string[];
  grantTypes: GrantType[];
  scopes: string[];
  jwks: { keys: Record<string, unknown>[] } | null;
  jwksUri: string | null;
  idTokenSignedResponseAlg: 'RS256' | 'ES256';
  skipConsent: boolean;
  /** Its users always complete a second factor (docs/second-factors.md). */
  requireMfa: boolean;
  /** RFC 8693: its token exchanges without an actor_token leave out `act` (impersonation; docs/token-exchange.md). */
  tokenExchangeImpersonation: boolean;
  /** The upstream identity providers its login page offers, by slug; null = every enabled one (docs/federation.md). */
  identityProviders: string[] | null;
  /** OpenID Connect Back-Channel Logout: where logout tokens are POSTed (null: none), and whether they must carry sid. */
  backchannelLogoutUri: string | null;
  backchannelLogoutSessionRequired: boolean;
  registrationTokenHash: string | null;
  /** What a dynamically registered client may widen itself to by RFC 7592 update; null for operator-made clients. */
  registrationPolicy: { grantTypes: readonly string[]; scopes: readonly string[] } | null;
  /** Extra browser origins allowed to call the token endpoints with CORS (public clients also get their redirect URIs' origins). */
  allowedOrigins: string[];
  /** RFC 8707: the audience of tokens requested without `resource` when the scopes do not name one. */
  defaultResource: string | null;
  /** Null for clients made by an operator or registered with an initial access token (docs/agents.md). */
  provenance: ClientProvenance | null;
  /** RFC 8707 resources the client may name at /authorize; null: any registered one. */
  resources: string[] | null;
  /** An open client's budget key: the /64 or IPv4 address that self-registered it, or its metadata document's host. */
  registeredFrom: string | null;
  /** An open client's last authorization or token request (its creation until then); what the unused-client purge reads. */
  lastUsedAt: Date | null;
  disabled: boolean;
  createdAt: Date;
  updatedAt: Date;
  /** Bumped by every change: the admin API's strong ETag and If-Match compare-and-set. */
  version: number;
  /** After a secret rotation: the previous secret, accepted until `previousSecretExpiresAt`. */
  previousSecretHash: string | null;
  previousSecretExpiresAt: Date | null;
}

export type NewClient = Omit<
  Client,
  | 'createdAt'
  | 'updatedAt'
  | 'disabled'
  | 'registrationTokenHash'
  | 'registrationPolicy'
  | 'allowedOrigins'
  | 'defaultResource'
  | 'version'
  | 'previousSecretHash'
  | 'previousSecretExpiresAt'
  | 'requireMfa'
  | 'tokenExchangeImpersonation'
  | 'identityProviders'
  | 'backchannelLogoutUri'
  | 'backchannelLogoutSessionRequired'
  | 'provenance'
  | 'resources'
  | 'registeredFrom'
  | 'lastUsedAt'
> & {
  provenance?: ClientProvenance | null;
  registeredFrom?: string | null;
  resources?: string[] | null;
  requireMfa?: boolean;
  tokenExchangeImpersonation?: boolean;
  backchannelLogoutUri?: string | null;
  backchannelLogoutSessionRequired?: boolean;
  identityProviders?: string[] | null;
  allowedOrigins?: string[];
  defaultResource?: string | null;
  registrationTokenHash?: string | null;
  registrationPolicy?: Client['registrationPolicy'];
};

export const toClient = (r: Selectable<ClientsTable>): Client => ({
  id: r.id,
  name: r.name,
  type: r.type as ClientType,
  secretHash: r.secret_hash,
  authMethod: r.token_endpoint_auth_method as TokenEndpointAuthMethod,
  redirectUris: r.redirect_uris,
  postLogoutRedirectUris: r.post_logout_redirect_uris,
  grantTypes: r.grant_types as GrantType[],
  scopes: r.scopes,
  jwks: (r.jwks as Client['jwks']) ?? null,
  jwksUri: r.jwks_uri,
  idTokenSignedResponseAlg: r.id_token_signed_response_alg as Client['idTokenSignedResponseAlg'],
  skipConsent: r.skip_consent,
  requireMfa: r.require_mfa,
  tokenExchangeImpersonation: r.token_exchange_impersonation,
  identityProviders: r.identity_providers,
  backchannelLogoutUri: r.backchannel_logout_uri,
  backchannelLogoutSessionRequired: r.backchannel_logout_session_required,
  registrationTokenHash: r.registration_token_hash,
  registrationPolicy: r.registration_grant_types && r.registration_scopes ? { grantTypes: r.registration_grant_types, scopes: r.registration_scopes } : null,
  allowedOrigins: r.allowed_origins,
  defaultResource: r.default_resource,
  provenance: r.provenance as ClientProvenance | null,
  resources: r.resources,
  registeredFrom: r.registered_from,
  lastUsedAt: r.last_used_at,
  disabled: r.disabled,
  createdAt: r.created_at,
  updatedAt: r.updated_at,
  version: r.version,
  previousSecretHash: r.previous_secret_hash,
  previousSecretExpiresAt: r.previous_secret_expires_at,
});

export const clientColumns = (c: Partial<NewClient>) => ({
  ...(c.name !== undefined ? { name: c.name } : {}),
  ...(c.type !== undefined ? { type: c.type } : {}),
  ...(c.secretHash !== undefined ? { secret_hash: c.secretHash } : {}),
  ...(c.authMethod !== undefined ? { token_endpoint_auth_method: c.authMethod } : {}),
  ...(c.redirectUris !== undefined ? { redirect_uris: c.redirectUris } : {}),
  ...(c.postLogoutRedirectUris !== undefined ? { post_logout_redirect_uris: c.postLogoutRedirectUris } : {}),
  ...(c.grantTypes !== undefined ? { grant_types: c.grantTypes } : {}),
  ...(c.scopes !== undefined ? { scopes: c.scopes } : {}),
  ...(c.jwks !== undefined ? { jwks: c.jwks === null ? null : JSON.stringify(c.jwks) } : {}),
  ...(c.jwksUri !== undefined ? { jwks_uri: c.jwksUri } : {}),
  ...(c.idTokenSignedResponseAlg !== undefined ? { id_token_signed_response_alg: c.idTokenSignedResponseAlg } : {}),
  ...(c.skipConsent !== undefined ? { skip_consent: c.skipConsent } : {}),
  ...(c.requireMfa !== undefined ? { require_mfa: c.requireMfa } : {}),
  ...(c.tokenExchangeImpersonation !== undefined ? { token_exchange_impersonation: c.tokenExchangeImpersonation } : {}),
  ...(c.identityProviders !== undefined ? { identity_providers: c.identityProviders } : {}),
  ...(c.backchannelLogoutUri !== undefined ? { backchannel_logout_uri: c.backchannelLogoutUri } : {}),
  ...(c.backchannelLogoutSessionRequired !== undefined ? { backchannel_logout_session_required: c.backchannelLogoutSessionRequired } : {}),
  ...(c.allowedOrigins !== undefined ? { allowed_origins: c.allowedOrigins } : {}),
  ...(c.defaultResource !== undefined ? { default_resource: c.defaultResource } : {}),
  ...(c.registrationTokenHash !== undefined ? { registration_token_hash: c.registrationTokenHash } : {}),
  ...(c.provenance !== undefined ? { provenance: c.provenance } : {}),
  ...(c.resources !== undefined ? { resources: c.resources } : {}),
  ...(c.registeredFrom !== undefined ? { registered_from: c.registeredFrom } : {}),
  ...(c.registrationPolicy !== undefined
    ? {
        registration_grant_types: c.registrationPolicy ? [...c.registrationPolicy.grantTypes] : null,
        registration_scopes: c.registrationPolicy ? [...c.registrationPolicy.scopes] : null,
      }
    : {}),
});

export interface ClientsRepository {
  create(client: NewClient): Promise<Client>;
  /** Creates the client, or brings an existing one with this id to these values (leaving `disabled` as the operator set it). */
  upsert(client: NewClient): Promise<Client>;
  /** Enabled clients only: a disabled client is as good as unknown everywhere. */
  find(id: string): Promise<Client | undefined>;
  list(): Promise<Client[]>;
  update(id: string, changes: Partial<NewClient>): Promise<Client | undefined>;
  delete(id: string): Promise<boolean>;
  /** What CORS needs of every enabled client, in one read (the per-app origin index refreshes from it). */
  corsOrigins(limit: number): Promise<{ id: string; type: ClientType; redirectUris: string[]; allowedOrigins: string[] }[]>;
  /** Marks the client disabled (find() no longer returns it); false when there is no such client. */
  disable(id: string): Promise<boolean>;
  /**
   * Serialises the budget of open clients counted against `key` (an address or a document host) until the
   * transaction ends: whoever counts and then creates under it cannot be overtaken by a parallel creation,
   * on this instance or another sharing the database. Needs a transaction.
   */
  lockOpenClientBudget(provenance: ClientProvenance, key: string): Promise<void>;
  /** How many open clients of this provenance count against `key` (created at or after `since`, when given), and the oldest of them. */
  openClientBudgetUse(provenance: ClientProvenance, key: string, since?: Date): Promise<{ count: number; oldest: Date | undefined }>;
  /**
   * Records a real use (an authorization or token request) of an open client: what keeps it from the unused
   * purge. Written at most once per `granularityMs` per client (a conditional update); other clients are untouched.
   */
  markOpenClientUsed(id: string, granularityMs: number): Promise<void>;
  /**
   * Deletes self-registered and metadata-document clients not used since `cutoff` that have no live grant (their
   * codes, interactions and ended grants go with them); returns how many.
   */
  purgeUnusedOpenClients(cutoff: Date): Promise<number>;
}

export function clientsRepository(db: Db, clock: Clock): ClientsRepository {
  return {
    async create(client) {
      const now = new Date(clock.now());
      const row = await db
        .insertInto('clients')
        .values({
          id: client.id,
          name: client.name,
          type: client.type,
          token_endpoint_auth_method: client.authMethod,
          grant_types: client.grantTypes,
          scopes: client.scopes,
          ...clientColumns(client),
          // An open client's creation is its first use: the purge counts from here.
          ...(client.provenance ? { last_used_at: now } : {}),
          created_at: now,
          updated_at: now,
        })
        .returningAll()
        .executeTakeFirstOrThrow();
      return toClient(row);
    },
    async upsert(client) {
      const now = new Date(clock.now());
      const values = {
        name: client.name,
        type: client.type,
        token_endpoint_auth_method: client.authMethod,
        grant_types: client.grantTypes,
        scopes: client.scopes,
        ...clientColumns(client),
      };
      const row = await db
        .insertInto('clients')
        .values({ id: client.id, ...values, created_at: now, updated_at: now })
        .onConflict((oc) => oc.column('id').doUpdateSet({ ...values, updated_at: now, version: sql`clients.version + 1` }))
        .returningAll()
        .executeTakeFirstOrThrow();
      return toClient(row);
    },
    async find(id) {
      // PostgreSQL text cannot hold U+0000, so such an id cannot exist; asking would be a driver error (a 500).
      if (id.includes('\u0000')) return undefined;
      const row = await db.selectFrom('clients').selectAll().where('id', '=', id).where('disabled', '=', false).executeTakeFirst();
      return row && toClient(row);
    },
    async list() {
      return (await db.selectFrom('clients').selectAll().orderBy('created_at').orderBy('id').execute()).map(toClient);
    },
    async update(id, changes) {
      const row = await db
        .updateTable('clients')
        .set({ ...clientColumns(changes), updated_at: new Date(clock.now()), version: sql`version + 1` })
        .where('id', '=', id)
        .returningAll()
        .executeTakeFirst();
      return row && toClient(row);
    },
    async delete(id) {
      // Its grants are revoked (with the access tokens issued under them) before the cascade deletes them.
      return deleteGrantOwner(db, clock, { clientId: id });
    },
    async corsOrigins(limit) {
      const rows = await db
        .selectFrom('clients')
        .select(['id', 'type', 'redirect_uris', 'allowed_origins'])
        .where('disabled', '=', false)
        .where((eb) => eb.or([eb('type', '=', 'public'), eb(sql<number>`cardinality(allowed_origins)`, '>', 0)]))
        .orderBy('created_at')
        .limit(limit)
        .execute();
      return rows.map((r) => ({ id: r.id, type: r.type as ClientType, redirectUris: r.redirect_uris, allowedOrigins: r.allowed_origins }));
    },
    async lockOpenClientBudget(provenance, key) {
      await lockTask(db, `open-client budget ${provenance} ${key}`);
    },
    async openClientBudgetUse(provenance, key, since) {
      let query = db
        .selectFrom('clients')
        .select((eb) => [eb.fn.countAll<string>().as('count'), eb.fn.min('created_at').as('oldest')])
        .where('provenance', '=', provenance)
        .where('registered_from', '=', key);
      if (since) query = query.where('created_at', '>=', since);
      const row = await query.executeTakeFirstOrThrow();
      return { count: Number(row.count), oldest: row.oldest ? new Date(row.oldest) : undefined };
    },
    async markOpenClientUsed(id, granularityMs) {
      const now = clock.now();
      await db
        .updateTable('clients')
        .set({ last_used_at: new Date(now) })
        .where('id', '=', id)
        .where('provenance', 'is not', null)
        .where((eb) => eb.or([eb('last_used_at', 'is', null), eb('last_used_at', '<', new Date(now - granularityMs))]))
        .execute();
    },
    async purgeUnusedOpenClients(cutoff) {
      const at = new Date(clock.now());
      // One statement: a grant created meanwhile either commits first (the row is kept) or finds no client.
      // Only clients without a live grant go, so no live access token is left behind (and the cascade's
      // trigger would put one on the revocation list anyway).
      const result = await db
        .deleteFrom('clients as c')
        .where('c.provenance', 'is not', null)
        // Only real use counts (markOpenClientUsed): re-reading a metadata document does not keep its row.
        .where((eb) => eb.or([eb('c.last_used_at', '<', cutoff), eb.and([eb('c.last_used_at', 'is', null), eb('c.created_at', '<', cutoff)])]))
        .where(({ not, exists, selectFrom }) =>
          not(
            exists(
              selectFrom('oauth_grants as g')
                .select('g.id')
                .whereRef('g.client_id', '=', 'c.id')
                .where('g.revoked_at', 'is', null)
                .where('g.expires_at', '>', at),
            ),
          ),
        )
        .executeTakeFirst();
      return Number(result.numDeletedRows);
    },
    async disable(id) {
      const result = await db
        .updateTable('clients')
        .set({ disabled: true, updated_at: new Date(clock.now()), version: sql`version + 1` })
        .where('id', '=', id)
        .executeTakeFirst();
      return Number(result.numUpdatedRows) > 0;
    },
  };
}
