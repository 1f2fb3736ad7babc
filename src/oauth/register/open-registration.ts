// Anonymous dynamic registration within a policy (REGISTRATION=open; docs/agents.md): POST /register without
// an initial access token creates a *public* client (auth method none, no secret, no keys, no back-channel
// logout), only for the grants a user approves (never client_credentials) and only OPEN_CLIENT_SCOPES (never
// an operator-only scope) and OPEN_CLIENT_RESOURCES. Each address may register RATE_LIMIT_OPEN_REGISTRATIONS
// clients an hour: the attempt is charged before any work and refunded when the metadata is refused. The client
// is labelled self-registered (consent page, admin API), gets no registration access token (it cannot widen
// itself by RFC 7592 update) and is deleted once unused (housekeeping.ts).
import type { FastifyRequest } from 'fastify';
import type { Config } from '../../config.js';
import type { OutboundPolicy } from '../../http/outbound/outbound-policy.js';
import type { RateLimits } from '../../http/rate-limit.js';
import { parseScope } from '../../scopes.js';
import type { Client } from '../../storage/repositories/clients-repository.js';
import type { Store } from '../../storage/store.js';
import type { Clock } from '../../clock.js';
import { createClient } from '../clients/create-client.js';
import { ClientMetadataError, validateClientMetadata, type ClientMetadataInput } from '../clients/metadata.js';
import { checkOpenClientGrants, openClientScope, openClientScopes, refuse } from '../clients/open-client-policy.js';
import type { ResourceRegistry } from '../resources/registry.js';

export interface OpenRegistrationDeps {
  config: Pick<Config, 'OPEN_CLIENT_SCOPES' | 'OPEN_CLIENT_RESOURCES'>;
  store: Store;
  clock: Clock;
  outbound: OutboundPolicy;
  rateLimits: RateLimits;
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

/** Registers a self-registered public client; ClientMetadataError when the metadata asks for more than the policy. */
export async function registerOpenClient(request: FastifyRequest, body: Record<string, unknown>, deps: OpenRegistrationDeps): Promise<Client> {
  const reservation = await deps.rateLimits.reserve('open_registrations', request.ip);
  try {
    const metadata = await openMetadata(body, deps);
    const { client } = await createClient(deps.store.clients, {
      ...metadata,
      provenance: 'self_registered',
      resources: [...deps.config.OPEN_CLIENT_RESOURCES],
    });
    return client;
  } catch (error) {
    // A refused registration created nothing: it does not use up the address's budget.
    if (error instanceof ClientMetadataError) await reservation.refund();
    throw error;
  }
}

/** Whether this POST /register is anonymous registration: open policy and no credentials at all. */
export const isOpenRegistration = (config: Pick<Config, 'REGISTRATION'>, authorization: string | undefined): boolean =>
  config.REGISTRATION === 'open' && (authorization === undefined || authorization === '');
