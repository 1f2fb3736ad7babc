// Client administration, written once for the CLI (`gatehouse clients ...`) and the admin API
// (/admin/v1/clients): validation (the RFC 7591 rules of POST /register plus the operator-only parts),
// version-guarded writes (If-Match), secret rotation with an overlap window, and one audit event per
// change — field names only, never a secret (docs/admin-api.md, docs/audit-log.md).
import type { Clock } from '../clock.js';
import type { Config } from '../config.js';
import type { Store } from '../storage/store.js';
import { randomToken, sha256 } from '../crypto/random.js';
import { TOKEN_EXCHANGE_GRANT, type Client } from '../storage/repositories/clients-repository.js';
import { validateClientMetadata, type ClientMetadataInput } from '../oauth/clients/metadata.js';
import { clientMetadataView, createClient, MIN_IMPORTED_SECRET_LENGTH, usesSecret } from '../oauth/clients/create-client.js';
import { endClient, revokeEveryTokenOf, type ClientEnding } from '../oauth/clients/end-client.js';
import { CONSOLE_CLIENT_ID } from '../oauth/clients/console-client.js';
import { DEMO_CLIENT_ID } from '../oauth/clients/demo-client.js';
import type { ClientLookup } from '../oauth/clients/client-cache.js';
import { allowedOriginProblem } from '../oauth/cors/origins.js';
import type { OutboundPolicy } from '../http/outbound/outbound-policy.js';
import type { ResourceRegistry } from '../oauth/resources/registry.js';
import type { Actor, AuditEventInput } from '../audit/audit-events.js';
import type { AuditSink } from '../audit/audit-sink.js';
import { AdminRuleError } from './rule-error.js';

export interface ClientServiceDeps {
  store: Store;
  clock: Clock;
  config: Pick<Config, 'ACCESS_TOKEN_TTL' | 'CLOCK_SKEW' | 'CLIENT_CACHE_TTL' | 'WEBHOOK_ALLOWED_HOSTS'>;
  /** This instance's client cache (forgotten after every change). */
  clients: Pick<ClientLookup, 'forget'>;
  outbound: OutboundPolicy;
  /** Scopes and resource servers a client may be registered for (docs/resource-servers.md). */
  resources: Pick<ResourceRegistry, 'catalogue'>;
  audit: AuditSink;
}

/** Who asks, and the request's trace id when there is one. */
export interface ActingAs {
  actor: Actor;
  traceId?: string;
}

/** Impersonation is a way of using token exchange: a client not registered for it cannot be allowed it. */
function checkedImpersonation(metadata: { grantTypes: readonly string[] }, wanted: boolean | undefined): boolean | undefined {
  if (wanted && !metadata.grantTypes.includes(TOKEN_EXCHANGE_GRANT)) {
    throw new AdminRuleError('invalid', `needs the grant type ${TOKEN_EXCHANGE_GRANT}`, 'token_exchange_impersonation');
  }
  return wanted;
}

export interface ClientInput {
  metadata: ClientMetadataInput;
  allowedOrigins: readonly string[];
  skipConsent: boolean;
  /** Every sign-in for this client completes a second factor (docs/second-factors.md). */
  requireMfa?: boolean;
  /**
   * RFC 8693: its exchanges without an actor_token leave out `act` (impersonation, docs/token-exchange.md);
   * only for a client registered for token exchange. A replace leaves it when undefined.
   */
  tokenExchangeImpersonation?: boolean;
  /** The audience of tokens requested without `resource`: a registered resource server (null: none; a replace leaves it when undefined). */
  defaultResource?: string | null;
  /** Slugs of the upstream identity providers its login page offers (null: every enabled one; a replace leaves it when undefined). */
  identityProviders?: string[] | null;
  /** A client_id chosen by the operator (`--client-id`, `gatehouse apply`) instead of a random one; only at creation. */
  clientId?: string;
  /**
   * Refused everywhere while true: /token answers invalid_client, /authorize an error page, and disabling
   * ends every token the client holds. Undefined leaves it as it is: a document written before the member
   * existed must not enable a client again.
   */
  disabled?: boolean;
}

/**
 * The clients Gatehouse registers itself at each start. The console's would lock every operator out if it
 * were disabled (upsert keeps `disabled`, so a restart would not help), and the demo's secret is derived,
 * not stored: neither is the operator's to change, disable or delete.
 */
export const BUILT_IN_CLIENT_IDS: ReadonlySet<string> = new Set([CONSOLE_CLIENT_ID, DEMO_CLIENT_ID]);

function refuseBuiltIn(id: string): void {
  if (BUILT_IN_CLIENT_IDS.has(id)) {
    throw new AdminRuleError(
      'conflict',
      `${id} is built in: Gatehouse registers it at each start from its settings, so it cannot be changed, disabled or deleted`,
    );
  }
}

/** An operator-chosen client_id: RFC 6749 VSCHARs that survive a URL path and a command line unquoted. */
const CLIENT_ID = /^[A-Za-z0-9._~][A-Za-z0-9._~-]{0,127}$/;

/** The longest overlap a rotated secret may keep: a forgotten old secret must not live on for months. */
const MAX_SECRET_OVERLAP_SECONDS = 30 * 24 * 3600;

/** The representation both faces show: RFC 7591 metadata plus the operator's fields; never a secret or its hash. */
export function clientView(client: Client): Record<string, unknown> {
  return {
    ...clientMetadataView(client),
    allowed_origins: client.allowedOrigins,
    identity_providers: client.identityProviders,
    disabled: client.disabled,
    ...(client.previousSecretExpiresAt ? { previous_secret_expires_at: client.previousSecretExpiresAt.toISOString() } : {}),
    updated_at: client.updatedAt.toISOString(),
  };
}

export function checkedOrigins(values: readonly string[]): string[] {
  const origins = [...new Set(values)];
  for (const origin of origins) {
    const problem = allowedOriginProblem(origin);
    if (problem) throw new AdminRuleError('invalid', problem, 'allowed_origins', origin.slice(0, 100));
  }
  return origins;
}

function checkImportedSecret(metadata: { authMethod: Client['authMethod'] }, secret: string | undefined): void {
  if (secret === undefined) return;
  if (!usesSecret(metadata)) throw new AdminRuleError('invalid', 'applies only to client_secret_basic or client_secret_post clients', 'client_secret');
  if (secret.length < MIN_IMPORTED_SECRET_LENGTH)
    throw new AdminRuleError('invalid', `must have at least ${MIN_IMPORTED_SECRET_LENGTH} characters`, 'client_secret');
}

const changeEvent = (type: AuditEventInput['type'], client: Pick<Client, 'id'>, as: ActingAs, changedFields: readonly string[] = []): AuditEventInput => ({
  type,
  actor: as.actor,
  resource: 'client',
  resourceId: client.id,
  clientId: client.id,
  changedFields,
  ...(as.traceId ? { traceId: as.traceId } : {}),
});

/** Field names whose values differ between two views (the audit log's "what", never the values). */
export function changedFields(before: Record<string, unknown>, after: Record<string, unknown>): string[] {
  const names = new Set([...Object.keys(before), ...Object.keys(after)]);
  names.delete('updated_at');
  return [...names].filter((n) => JSON.stringify(before[n]) !== JSON.stringify(after[n])).sort();
}

/** Creates a client; a secret-based client gets a server-generated secret (or the imported one), returned once. */
export async function createClientRecord(
  deps: ClientServiceDeps,
  input: ClientInput & { importedSecret?: string },
  as: ActingAs,
): Promise<{ client: Client; secret?: string }> {
  const origins = checkedOrigins(input.allowedOrigins);
  const catalogue = await deps.resources.catalogue();
  checkDefaultResource(input.defaultResource, catalogue);
  if (input.clientId !== undefined && !CLIENT_ID.test(input.clientId)) {
    throw new AdminRuleError('invalid', 'must be 1-128 letters, digits and . _ ~ - (not starting with -)', 'client_id', input.clientId.slice(0, 100));
  }
  // Both faces are the operator's: operator-only scopes (admin:*) may be given here, never at /register.
  const metadata = {
    ...(await validateClientMetadata(input.metadata, {
      outbound: deps.outbound,
      receivers: { ...deps.outbound, allowedHosts: deps.config.WEBHOOK_ALLOWED_HOSTS },
      catalogue,
      operator: true,
    })),
    allowedOrigins: origins,
    ...(input.defaultResource != null ? { defaultResource: input.defaultResource } : {}),
  };
  checkImportedSecret(metadata, input.importedSecret);
  const identityProviders = await checkedIdentityProviders(deps.store, input.identityProviders);
  const created = await deps.store.transaction(async (tx) => {
    if (input.clientId !== undefined && (await tx.clientAdmin.findAny(input.clientId))) {
      throw new AdminRuleError('conflict', `a client ${input.clientId} exists already`, 'client_id');
    }
    const made = await createClient(tx.clients, metadata, {
      ...(input.clientId !== undefined ? { id: input.clientId } : {}),
      skipConsent: input.skipConsent,
      requireMfa: input.requireMfa ?? false,
      tokenExchangeImpersonation: checkedImpersonation(metadata, input.tokenExchangeImpersonation) ?? false,
      ...(identityProviders !== undefined ? { identityProviders } : {}),
      ...(input.importedSecret !== undefined ? { importedSecret: input.importedSecret } : {}),
    });
    // Made disabled (prepared before it goes live): nothing was issued yet, so there is nothing to revoke.
    const client = input.disabled ? await tx.clientAdmin.updateIfVersion(made.client.id, { disabled: true }, made.client.version) : made.client;
    const result = { ...made, client: client ?? made.client };
    await deps.audit.emit(
      changeEvent(
        'admin.client.created',
        result.client,
        as,
        Object.keys(clientView(result.client))
          .filter((k) => k !== 'updated_at')
          .sort(),
      ),
      { tx },
    );
    return result;
  });
  // A lookup of this id may have been remembered as unknown, and the origins index predates the client.
  deps.clients.forget(created.client.id);
  return created;
}

/** Each slug names a configured provider (disabled ones too: enabling one later needs no client change). */
async function checkedIdentityProviders(store: ClientServiceDeps['store'], slugs: readonly string[] | null | undefined): Promise<string[] | null | undefined> {
  if (slugs == null) return slugs;
  const unique = [...new Set(slugs)];
  const providers = store.identityProviders;
  for (const slug of unique) {
    if (!(await providers.find(slug)))
      throw new AdminRuleError('invalid', `${JSON.stringify(slug.slice(0, 64))} is not a configured identity provider`, 'identity_providers');
  }
  return unique;
}

function checkDefaultResource(value: string | null | undefined, catalogue: { find(identifier: string): unknown }): void {
  if (value != null && !catalogue.find(value)) {
    throw new AdminRuleError('invalid', `${JSON.stringify(value.slice(0, 200))} is not a registered resource server`, 'default_resource');
  }
}

export async function findClientRecord(deps: Pick<ClientServiceDeps, 'store' | 'clock'>, id: string): Promise<Client> {
  const client = await deps.store.clientAdmin.findAny(id);
  if (!client) throw new AdminRuleError('not-found', `no client ${id}`);
  return client;
}

export async function listClientRecords(
  deps: Pick<ClientServiceDeps, 'store' | 'clock'>,
  page: { after?: { createdAt: Date; id: string }; limit: number },
): Promise<Client[]> {
  return deps.store.clientAdmin.page(page);
}

/**
 * Full replacement of a client's settings, written only if the client is still at `expectedVersion`
 * (else `stale`). The type (public/confidential) cannot change, and a client without a secret cannot
 * switch to a secret method here (it would need a secret nobody has seen): rotate after creating anew.
 */
export async function replaceClientRecord(
  deps: ClientServiceDeps,
  current: Client,
  input: ClientInput,
  expectedVersion: number,
  as: ActingAs,
): Promise<Client> {
  refuseBuiltIn(current.id);
  const origins = checkedOrigins(input.allowedOrigins);
  const catalogue = await deps.resources.catalogue();
  const metadata = await validateClientMetadata(input.metadata, {
    outbound: deps.outbound,
    receivers: { ...deps.outbound, allowedHosts: deps.config.WEBHOOK_ALLOWED_HOSTS },
    catalogue,
    operator: true,
  });
  checkDefaultResource(input.defaultResource, catalogue);
  if (metadata.type !== current.type)
    throw new AdminRuleError('invalid', 'the client type (public or confidential) cannot change', 'token_endpoint_auth_method');
  if (usesSecret(metadata) && !current.secretHash)
    throw new AdminRuleError('invalid', 'a client without a secret cannot switch to a secret method', 'token_endpoint_auth_method');
  const secretless = usesSecret(metadata) ? {} : { secretHash: null };
  const disabling = input.disabled === true && !current.disabled;
  if (input.disabled === false && current.disabled) await checkEnablable(deps, current.id);
  const identityProviders = await checkedIdentityProviders(deps.store, input.identityProviders);
  const updated = await deps.store.transaction(async (tx) => {
    const written = await tx.clientAdmin.updateIfVersion(
      current.id,
      {
        ...metadata,
        ...secretless,
        allowedOrigins: origins,
        skipConsent: input.skipConsent,
        ...(input.requireMfa !== undefined ? { requireMfa: input.requireMfa } : {}),
        tokenExchangeImpersonation: checkedImpersonation(metadata, input.tokenExchangeImpersonation ?? current.tokenExchangeImpersonation) ?? false,
        ...(input.defaultResource !== undefined ? { defaultResource: input.defaultResource } : {}),
        ...(input.disabled !== undefined ? { disabled: input.disabled } : {}),
        ...(identityProviders !== undefined ? { identityProviders } : {}),
      },
      expectedVersion,
    );
    if (!written) return undefined;
    // In the write's transaction: a client is never disabled with its tokens still working.
    if (disabling) await revokeEveryTokenOf(tx, deps, current.id);
    await deps.audit.emit(changeEvent('admin.client.updated', written, as, changedFields(clientView(current), clientView(written))), { tx });
    return written;
  });
  deps.clients.forget(current.id);
  if (updated) return updated;
  if (await deps.store.clientAdmin.findAny(current.id)) throw new AdminRuleError('stale', 'the client changed since it was read');
  throw new AdminRuleError('not-found', `no client ${current.id}`);
}

/**
 * Allows or forbids a client impersonation in token exchange (`gatehouse clients update ID
 * --token-exchange-impersonation on|off`; the admin API's PATCH of `token_exchange_impersonation` goes through
 * replaceClientRecord). Only that setting is written, version-guarded like every client write and audited as
 * admin.client.updated naming it. Setting it to what it is already writes nothing, and a write that lost a
 * race reads the client again: the same command sent twice at once changes it (and is audited) once.
 * Existing exchanged tokens keep what they were issued with; the setting decides the next exchanges.
 */
export async function setTokenExchangeImpersonation(deps: ClientServiceDeps, id: string, allowed: boolean, as: ActingAs): Promise<Client> {
  refuseBuiltIn(id);
  for (let attempt = 1; ; attempt++) {
    const current = await findClientRecord(deps, id);
    if (current.tokenExchangeImpersonation === allowed) return current;
    checkedImpersonation(current, allowed);
    const updated = await deps.store.transaction(async (tx) => {
      const written = await tx.clientAdmin.updateIfVersion(id, { tokenExchangeImpersonation: allowed }, current.version);
      if (!written) return undefined;
      await deps.audit.emit(changeEvent('admin.client.updated', written, as, changedFields(clientView(current), clientView(written))), { tx });
      return written;
    });
    deps.clients.forget(id);
    if (updated) return updated;
    // Another write came first (or the client went): read it again, a few times at most.
    if (attempt >= 3) throw new AdminRuleError('stale', 'the client kept changing while this update ran; run it again');
  }
}

/**
 * Enabling a client again waits until its disabling's revocation window has passed (disabled at T: every
 * token issued until T + CLIENT_CACHE_TTL is refused). Each instance's copy of that window only widens, so a
 * token issued inside it after an enable would be handed out and then refused by every resource server;
 * `conflict` says when to retry instead (seconds: the window is CLIENT_CACHE_TTL, 5 s by default).
 */
async function checkEnablable(deps: Pick<ClientServiceDeps, 'store' | 'clock'>, id: string): Promise<void> {
  const until = await deps.store.revocations.clientCoveredUntil(id);
  if (until && until.getTime() >= deps.clock.now()) {
    throw new AdminRuleError(
      'conflict',
      `the client was disabled moments ago and tokens issued until ${until.toISOString()} are being refused; enable it again after that time`,
    );
  }
}

/** Deletes or disables the client and ends all its tokens; with `expectedVersion`, only if still at that version. */
export async function endClientRecord(deps: ClientServiceDeps, id: string, how: ClientEnding, as: ActingAs, expectedVersion?: number): Promise<void> {
  refuseBuiltIn(id);
  const ended = await endClient(deps, id, how, {
    ...(expectedVersion !== undefined ? { expectedVersion } : {}),
    onEnded: (tx) =>
      deps.audit.emit(changeEvent(how === 'delete' ? 'admin.client.deleted' : 'admin.client.updated', { id }, as, how === 'disable' ? ['disabled'] : []), {
        tx,
      }),
  });
  if (ended === 'stale') throw new AdminRuleError('stale', 'the client changed since it was read');
  if (!ended) throw new AdminRuleError('not-found', `no client ${id}`);
}

/**
 * A new secret for a secret-based client. The previous one stays valid until `previousExpiresAt` (now:
 * at once; at most MAX_SECRET_OVERLAP_SECONDS ahead), so deployments can switch without downtime.
 */
export async function rotateClientSecret(
  deps: ClientServiceDeps,
  id: string,
  options: {
    previousExpiresAt?: Date;
    expectedVersion?: number /** The operator's own secret (`gatehouse apply`), else a random one. */;
    importedSecret?: string;
  },
  as: ActingAs,
): Promise<{ client: Client; secret: string }> {
  refuseBuiltIn(id);
  const now = deps.clock.now();
  const previousExpiresAt = options.previousExpiresAt ?? new Date(now);
  if (previousExpiresAt.getTime() < now || previousExpiresAt.getTime() > now + MAX_SECRET_OVERLAP_SECONDS * 1000) {
    throw new AdminRuleError('invalid', `must be between now and ${MAX_SECRET_OVERLAP_SECONDS / 86400} days from now`, 'previous_secret_expires_at');
  }
  const current = await findClientRecord(deps, id);
  if (!current.secretHash) throw new AdminRuleError('invalid', 'this client does not authenticate with a secret', 'token_endpoint_auth_method');
  checkImportedSecret(current, options.importedSecret);
  const secret = options.importedSecret ?? randomToken(32);
  const rotated = await deps.store.transaction(async (tx) => {
    const written = await tx.clientAdmin.rotateSecret(id, sha256(secret), previousExpiresAt, options.expectedVersion);
    if (!written) return undefined;
    await deps.audit.emit(
      { ...changeEvent('client.secret_rotated', written, as, ['client_secret']), details: { previous_secret_expires_at: previousExpiresAt.toISOString() } },
      { tx },
    );
    return written;
  });
  deps.clients.forget(id);
  if (!rotated)
    throw new AdminRuleError(
      options.expectedVersion !== undefined ? 'stale' : 'not-found',
      options.expectedVersion !== undefined ? 'the client changed since it was read' : `no client ${id}`,
    );
  return { client: rotated, secret };
}
