// Clients identified by a Client ID Metadata Document (draft-ietf-oauth-client-id-metadata-document): the
// client_id is an https URL, and the JSON document served there is the client's registration. The document is
// fetched through pinnedGet under the same address rules as a jwks_uri (never the server's own network, the
// connection pinned to the checked address, bounded by CIMD_FETCH_TIMEOUT and CIMD_MAX_BYTES, no redirects),
// only from hosts the operator's lists let in. Only public-client metadata is accepted (open-client-policy.ts);
// its `client_id` must be the URL itself. A valid document is written as a client row
// (provenance 'metadata_document') so codes, grants and consents can refer to it — at most
// CIMD_MAX_CLIENTS_PER_HOST rows per host, counted under a lock per host in the transaction that inserts,
// so parallel first uses of many URLs cannot exceed it; past it the document is refused and nothing is
// written. The row is rewritten, and audited, only when the document changed: a re-read that changes nothing
// writes nothing (no event, and no sign of use: only requests keep a row from the unused purge). A document is
// kept in memory for its Cache-Control max-age, between CIMD_CACHE_MIN and CIMD_CACHE_MAX; a refusal is kept for
// CIMD_CACHE_MIN, so a bad URL is not fetched again for every request. One cache per app (Core.clients),
// bounded by CIMD_CACHE_SIZE (least recently used first); concurrent misses share one fetch.
import type { Clock } from '../../clock.js';
import type { Config } from '../../config.js';
import { pinnedGet } from '../../http/outbound/pinned-get.js';
import { OutboundRefused, type OutboundPolicy } from '../../http/outbound/outbound-policy.js';
import { parseScope } from '../../scopes.js';
import type { AuditSink } from '../../audit/audit-sink.js';
import type { Client, NewClient } from '../../storage/repositories/clients-repository.js';
import type { Store } from '../../storage/store.js';
import { changedClientFields, clientEvent } from './client-events.js';
import type { ResourceRegistry } from '../resources/registry.js';
import { ClientMetadataError, validateClientMetadata, type ClientMetadataInput } from './metadata.js';
import { cacheLifetime, hostPermitted, metadataDocumentUrlProblem } from './metadata-document-url.js';
import { checkOpenClientGrants, openClientScope, openClientScopes } from './open-client-policy.js';

export type MetadataDocumentConfig = Pick<
  Config,
  | 'CIMD'
  | 'CIMD_ALLOWED_HOSTS'
  | 'CIMD_DENIED_HOSTS'
  | 'CIMD_FETCH_TIMEOUT'
  | 'CIMD_MAX_BYTES'
  | 'CIMD_CACHE_MIN'
  | 'CIMD_CACHE_MAX'
  | 'CIMD_CACHE_SIZE'
  | 'CIMD_MAX_CLIENTS_PER_HOST'
  | 'OPEN_CLIENT_SCOPES'
  | 'OPEN_CLIENT_RESOURCES'
>;

/** Why a metadata document was not accepted: a stable code for logs and tests, a sentence for the user's page. */
export interface MetadataDocumentRefusal {
  code: string;
  message: string;
}

export interface MetadataDocumentClients {
  /** The client the document at `url` describes; undefined when it is refused (see `refusal`). */
  resolve(url: string): Promise<Client | undefined>;
  /** Why the last resolution of `url` was refused, while that is remembered. */
  refusal(url: string): MetadataDocumentRefusal | undefined;
  /** Forgets what was read of `url` (its row was just changed here, e.g. disabled by an operator). */
  forget(url: string): void;
  readonly size: number;
}

export interface MetadataDocumentDeps {
  config: MetadataDocumentConfig;
  clock: Clock;
  outbound: OutboundPolicy;
  /** Where the rows are written (each in its own transaction, with its audit event). */
  store: Store;
  audit: Pick<AuditSink, 'emit'>;
  resources: Pick<ResourceRegistry, 'catalogue'>;
  /** Each refusal, for the operator's log. */
  onRefusal?: (url: string, refusal: MetadataDocumentRefusal) => void;
}

class Refused extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

// Members a public client's document must not carry: a secret would have been published to the world.
const SECRET_MEMBERS = ['client_secret', 'client_secret_expires_at'];
// Members this server does not act on for such a client: it never POSTs anywhere an anonymous party names.
const IGNORED_MEMBERS = ['backchannel_logout_uri', 'backchannel_logout_session_required', 'jwks'];

function parseDocument(body: Buffer): Record<string, unknown> {
  let document: unknown;
  try {
    document = JSON.parse(body.toString('utf8'));
  } catch {
    throw new Refused('not_json', 'The metadata document is not JSON.');
  }
  if (typeof document !== 'object' || document === null || Array.isArray(document))
    throw new Refused('not_json', 'The metadata document is not a JSON object.');
  return document as Record<string, unknown>;
}

async function fetchDocument(url: string, deps: MetadataDocumentDeps): Promise<{ document: Record<string, unknown>; lifetime: number }> {
  try {
    const answer = await pinnedGet(url, {
      policy: deps.outbound,
      timeoutMs: deps.config.CIMD_FETCH_TIMEOUT,
      maxBytes: deps.config.CIMD_MAX_BYTES,
      headers: { accept: 'application/json' },
    });
    return { document: parseDocument(answer.body), lifetime: cacheLifetime(answer.cacheControl, deps.config.CIMD_CACHE_MIN, deps.config.CIMD_CACHE_MAX) };
  } catch (error) {
    if (!(error instanceof OutboundRefused)) throw error;
    throw new Refused(`fetch_${error.code}`, `The metadata document could not be fetched: it ${error.message}.`);
  }
}

/** The client row a valid document stands for; Refused otherwise. */
async function clientOf(url: string, document: Record<string, unknown>, deps: MetadataDocumentDeps) {
  if (document.client_id !== url) throw new Refused('client_id_mismatch', 'The client_id in the metadata document is not the URL it was fetched from.');
  const secret = SECRET_MEMBERS.find((m) => m in document);
  if (secret) throw new Refused('secret_in_document', `The metadata document carries ${secret}: a published document cannot hold a secret.`);
  const method = document.token_endpoint_auth_method ?? 'none';
  if (method !== 'none' && method !== 'private_key_jwt')
    throw new Refused('auth_method_not_allowed', 'The metadata document names a client authentication method other than none or private_key_jwt.');
  if (method === 'private_key_jwt' && typeof document.jwks_uri !== 'string')
    throw new Refused('auth_method_not_allowed', 'A metadata document with private_key_jwt must publish its keys at a jwks_uri.');
  const catalogue = await deps.resources.catalogue();
  const input: ClientMetadataInput & Record<string, unknown> = { ...document, token_endpoint_auth_method: method };
  for (const member of IGNORED_MEMBERS) delete input[member];
  try {
    if (document.scope !== undefined && typeof document.scope !== 'string') throw new ClientMetadataError('invalid_client_metadata', 'scope must be a string');
    const scope = openClientScope(parseScope(document.scope as string | undefined), openClientScopes(deps.config, catalogue), catalogue, false);
    const metadata = await validateClientMetadata({ ...input, scope: scope.join(' ') }, { outbound: deps.outbound, catalogue });
    checkOpenClientGrants(metadata.grantTypes);
    return { ...metadata, name: typeof document.client_name === 'string' ? metadata.name : new URL(url).host };
  } catch (error) {
    if (error instanceof ClientMetadataError) throw new Refused(error.error, `The metadata document is not acceptable: ${error.message}.`);
    throw error;
  }
}

async function read(url: string, deps: MetadataDocumentDeps): Promise<{ client: Client; lifetime: number }> {
  const problem = metadataDocumentUrlProblem(url);
  if (problem) throw new Refused('url_refused', `The client_id ${problem}.`);
  if (!hostPermitted(url, deps.config)) throw new Refused('host_not_allowed', `This server does not accept applications from ${new URL(url).host}.`);
  const { document, lifetime } = await fetchDocument(url, deps);
  const metadata = await clientOf(url, document, deps);
  const client = await store(url, { ...metadata, id: url, secretHash: null, skipConsent: false, registrationTokenHash: null }, deps);
  return { client, lifetime };
}

/**
 * Writes the row of the document at `url`, or leaves it as it is when the document says what the row says.
 * A row made another way, or disabled by an operator, is never taken over; a new row needs room in its host's budget.
 */
async function store(url: string, metadata: NewClient, deps: MetadataDocumentDeps): Promise<Client> {
  const host = new URL(url).hostname;
  const next: NewClient = { ...metadata, provenance: 'metadata_document', registeredFrom: host, resources: [...deps.config.OPEN_CLIENT_RESOURCES] };
  const who = { document_url: url, host };
  return deps.store.transaction(async (tx) => {
    // First: a parallel first use of another URL of this host counts and inserts after this one commits.
    await tx.clients.lockOpenClientBudget('metadata_document', host);
    const current = await tx.clientAdmin.findAny(url);
    if (current) {
      if (current.provenance !== 'metadata_document' || current.disabled)
        throw new Refused('client_unavailable', 'This application has been disabled here, or its client_id belongs to a registered client.');
      const changed = changedClientFields(current, next);
      if (changed.length === 0) return current;
      const updated = (await tx.clients.update(url, next))!;
      await deps.audit.emit(clientEvent('client.metadata_document_updated', updated, who, { changedFields: changed }), { tx });
      return updated;
    }
    const budget = deps.config.CIMD_MAX_CLIENTS_PER_HOST;
    const { count } = await tx.clients.openClientBudgetUse('metadata_document', host);
    if (count >= budget)
      throw new Refused(
        'host_budget_exhausted',
        `This server already holds ${budget} applications from ${host}, the most it accepts from one host; try again once one of them is no longer used.`,
      );
    const created = await tx.clients.create(next);
    await deps.audit.emit(clientEvent('client.metadata_document_created', created, who), { tx });
    return created;
  });
}

type Entry = { client: Client; until: number } | { refusal: MetadataDocumentRefusal; until: number };

export function metadataDocumentClients(deps: MetadataDocumentDeps): MetadataDocumentClients {
  const entries = new Map<string, Entry>();
  const inFlight = new Map<string, Promise<Client | undefined>>();
  const now = () => deps.clock.now();

  function remember(url: string, entry: Entry): void {
    entries.delete(url);
    entries.set(url, entry);
    if (entries.size > deps.config.CIMD_CACHE_SIZE) entries.delete(entries.keys().next().value!);
  }

  async function load(url: string): Promise<Client | undefined> {
    try {
      const { client, lifetime } = await read(url, deps);
      remember(url, { client, until: now() + lifetime * 1000 });
      return client;
    } catch (error) {
      if (!(error instanceof Refused)) throw error;
      const refusal = { code: error.code, message: error.message };
      deps.onRefusal?.(url, refusal);
      remember(url, { refusal, until: now() + deps.config.CIMD_CACHE_MIN * 1000 });
      return undefined;
    }
  }

  return {
    resolve(url) {
      const entry = entries.get(url);
      if (entry && entry.until > now()) {
        remember(url, entry);
        return Promise.resolve('client' in entry ? entry.client : undefined);
      }
      const pending = inFlight.get(url);
      if (pending) return pending;
      const loading = load(url).finally(() => inFlight.delete(url));
      inFlight.set(url, loading);
      return loading;
    },
    refusal(url) {
      const entry = entries.get(url);
      return entry && 'refusal' in entry ? entry.refusal : undefined;
    },
    forget(url) {
      entries.delete(url);
    },
    get size() {
      return entries.size;
    },
  };
}
