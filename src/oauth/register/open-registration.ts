// Anonymous dynamic registration within a policy (REGISTRATION=open; docs/agents.md): POST /register without
// an initial access token creates a *public* client (auth method none, no secret, no keys, no back-channel
// logout), only for the grants a user approves (never client_credentials) and only OPEN_CLIENT_SCOPES (never
// an operator-only scope) and OPEN_CLIENT_RESOURCES. Each address — an IPv6 /64 counts as one address
// (http/address-key.ts) — may register RATE_LIMIT_OPEN_REGISTRATIONS clients an hour. That budget bounds
// rows, not request rates, so it is counted in the database (the clients it registered in the last hour) and
// holds with RATE_LIMIT_ENABLED=false and across instances: under a lock per address, the count and the
// insert are one transaction, so parallel registrations cannot exceed it, and a refused registration writes
// no row and so costs nothing. The client is labelled self-registered (consent page, admin API), audited
// (client.self_registered) in the transaction that creates it, gets no registration access token (it cannot
// widen itself by RFC 7592 update) and is deleted once unused (housekeeping.ts).
import type { FastifyRequest } from 'fastify';
import type { Config } from '../../config.js';
import type { OutboundPolicy } from '../../http/outbound/outbound-policy.js';
import { ProblemError } from '../../http/errors.js';
import type { AuditSink } from '../../audit/audit-sink.js';
import { parseScope } from '../../scopes.js';
import type { Client } from '../../storage/repositories/clients-repository.js';
import type { Store } from '../../storage/store.js';
import type { Clock } from '../../clock.js';
import { clientEvent } from '../clients/client-events.js';
import { createClient } from '../clients/create-client.js';
import { validateClientMetadata, type ClientMetadataInput } from '../clients/metadata.js';
import { checkOpenClientGrants, openClientScope, openClientScopes, refuse } from '../clients/open-client-policy.js';
import type { ResourceRegistry } from '../resources/registry.js';
import { addressKey } from '../../http/address-key.js';

export interface OpenRegistrationDeps {
  config: Pick<Config, 'OPEN_CLIENT_SCOPES' | 'OPEN_CLIENT_RESOURCES' | 'RATE_LIMIT_OPEN_REGISTRATIONS'>;
  store: Store;
  clock: Clock;
  outbound: OutboundPolicy;
  audit: Pick<AuditSink, 'emit'>;
  resources: Pick<ResourceRegistry, 'catalogue'>;
}

// Members that would make the server act for an anonymous party (fetch its keys, POST to it) or make it confidential.
const NOT_FOR_SELF_REGISTERED = ['jwks', 'jwks_uri', 'backchannel_logout_uri', 'client_secret'];

async function openMetadata(body: Record<string, unknown>, deps: OpenRegistrationDeps) {
  const method = body.token_endpoint_auth_method ?? 'none';
  if (method !== 'none')
    refuse(
      `token_endpoint_auth_method must be none: a self-registered client is public (it was asked for ${typeof method === 'string' ? method : 'another method'})`,
    );
  const member = NOT_FOR_SELF_REGISTERED.find((m) => body[m] !== undefined);
  if (member) refuse(`${member} is not accepted from a self-registered client`);
  if (body.scope !== undefined && typeof body.scope !== 'string') refuse('scope must be a space-separated string');
  const catalogue = await deps.resources.catalogue();
  const scope = openClientScope(parseScope(body.scope as string | undefined), openClientScopes(deps.config, catalogue), catalogue, true);
  const metadata = await validateClientMetadata(
    { ...(body as ClientMetadataInput), token_endpoint_auth_method: 'none', scope: scope.join(' ') },
    {
      outbound: deps.outbound,
      catalogue,
    },
  );
  checkOpenClientGrants(metadata.grantTypes);
  return metadata;
}

const HOUR_MS = 3_600_000;

/** Refuses (429, Retry-After: when the oldest counted registration leaves the hour) once `from` used up its budget. */
async function checkBudget(store: Pick<Store, 'clients'>, from: string, deps: OpenRegistrationDeps): Promise<void> {
  const now = deps.clock.now();
  const { count, oldest } = await store.clients.openClientBudgetUse('self_registered', from, new Date(now - HOUR_MS));
  const budget = deps.config.RATE_LIMIT_OPEN_REGISTRATIONS;
  if (count < budget) return;
  const retryAfter = Math.max(1, Math.ceil(((oldest?.getTime() ?? now) + HOUR_MS - now) / 1000));
  throw new ProblemError('rate-limited', `This address has registered ${budget} clients in the last hour, the most it may; retry later.`, {
    log: { reason: 'rate_limited_open_registrations' },
    headers: { 'retry-after': String(retryAfter), 'ratelimit-policy': `"open_registrations";q=${budget};w=3600` },
  });
}

/** Registers a self-registered public client; ClientMetadataError when the metadata asks for more than the policy. */
export async function registerOpenClient(request: FastifyRequest, body: Record<string, unknown>, deps: OpenRegistrationDeps): Promise<Client> {
  const from = addressKey(request.ip);
  // A look before any work, so a spent budget costs no validation; the count that decides is the one below.
  await checkBudget(deps.store, from, deps);
  const metadata = await openMetadata(body, deps);
  return deps.store.transaction(async (tx) => {
    await tx.clients.lockOpenClientBudget('self_registered', from);
    await checkBudget(tx, from, deps);
    const { client } = await createClient(tx.clients, {
      ...metadata,
      provenance: 'self_registered',
      registeredFrom: from,
      resources: [...deps.config.OPEN_CLIENT_RESOURCES],
    });
    await deps.audit.emit(clientEvent('client.self_registered', client, { registered_from: from }, { traceId: request.id }), { tx });
    return client;
  });
}

/** Whether this POST /register is anonymous registration: open policy and no credentials at all. */
export const isOpenRegistration = (config: Pick<Config, 'REGISTRATION'>, authorization: string | undefined): boolean =>
  config.REGISTRATION === 'open' && (authorization === undefined || authorization === '');
