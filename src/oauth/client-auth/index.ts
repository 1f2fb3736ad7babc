// Client authentication for /token, /revoke, /introspect (RFC 6749 2.3, 3.2.1; RFC 7523; RFC 7009 2.1;
// RFC 7662 2.1). Only the method the client registered is accepted. Every failure is the same
// 401 invalid_client (see failure.ts), whose log line names the reason; `hooks` is where the failure budget
// is charged (rate-limited.ts).
import type { OAuthDeps } from '../deps.js';
import type { Client, ClientsRepository, TokenEndpointAuthMethod } from '../../storage/repositories/clients-repository.js';
import type { FormParameters } from '../form-parameters.js';
import { isBasic } from './basic.js';
import { ClientAuthFailure, invalidClient } from './failure.js';
import { presentedCredentials, type ClientAuthRequest, type PresentedCredentials } from './presented.js';
import { verifyClientAssertion, type AssertionDeps } from './private-key-jwt.js';
import { clientSecretMatches } from './secret.js';
import { rateLimitedClientAuth } from './rate-limited.js';
import { decodeJwt } from 'jose';
import type { Reservation } from '../../http/rate-limit.js';

export type { ClientAuthRequest } from './presented.js';

export interface ClientAuthHooks {
  /**
   * Charges one attempt before the credentials are verified (`clientId` is the registered client the request
   * names, undefined when it names none); may throw (429 once the budget is used up). Refunded on success.
   */
  charge?(clientId: string | undefined, request: ClientAuthRequest): Promise<Reservation>;
}

export interface ClientAuthDeps extends AssertionDeps {
  clients: Pick<ClientsRepository, 'find'>;
  /** Methods this endpoint accepts (default: all); e.g. /introspect refuses public clients. */
  methods?: readonly TokenEndpointAuthMethod[];
  hooks?: ClientAuthHooks;
}

export function clientAuthDeps(
  core: Pick<OAuthDeps, 'clock' | 'config' | 'clients' | 'store' | 'remoteKeySets' | 'rateLimits'>,
  options: Pick<ClientAuthDeps, 'methods' | 'hooks'> = {},
): ClientAuthDeps {
  return {
    clock: core.clock,
    config: core.config,
    clients: core.clients,
    assertions: core.store.clientAssertions,
    remoteKeySets: core.remoteKeySets,
    hooks: rateLimitedClientAuth(core.rateLimits),
    ...options,
  };
}

function claimedClientId(credentials: PresentedCredentials): string | undefined {
  if (credentials.method !== 'private_key_jwt' || credentials.clientId !== undefined) return credentials.clientId;
  try {
    const sub = decodeJwt(credentials.assertion).sub;
    return typeof sub === 'string' ? sub : undefined;
  } catch {
    throw new ClientAuthFailure('malformed_client_assertion');
  }
}

// The codes tell an operator what went wrong (logs only); the caller sees one invalid_client for all.
const failureOf = (client: Client | undefined, mismatch: string): ClientAuthFailure => new ClientAuthFailure(client ? mismatch : 'unknown_client');

async function verify(credentials: PresentedCredentials, client: Client | undefined, deps: ClientAuthDeps): Promise<Client> {
  const registered = client?.authMethod === credentials.method;
  switch (credentials.method) {
    case 'client_secret_basic':
    case 'client_secret_post':
      // Compare even when the client is unknown or registered another method: same work, same timing.
      if (!clientSecretMatches(registered ? client : undefined, credentials.secret, deps.clock.now()))
        throw failureOf(client, registered ? 'wrong_secret' : 'auth_method_not_registered');
      return client!;
    case 'private_key_jwt':
      if (!registered) throw failureOf(client, 'auth_method_not_registered');
      await verifyClientAssertion(client!, credentials.assertion, deps);
      return client!;
    case 'none':
      if (!registered || client!.type !== 'public') throw failureOf(client, 'auth_method_not_registered');
      return client!;
  }
}

/**
 * The authenticated (or, for public clients, identified) client; throws 400 invalid_request or 401
 * invalid_client. Every attempt is charged to its failure budget before any secret or assertion is checked
 * (a failure before that point, e.g. unparsable credentials, is charged on the way out), and refunded on
 * success, so parallel guesses cannot outrun the budget (docs/rate-limits.md).
 */
export async function authenticateClient(request: ClientAuthRequest, params: FormParameters, deps: ClientAuthDeps): Promise<Client> {
  const usedBasic = isBasic(request.headers.authorization);
  let clientId: string | undefined;
  let client: Client | undefined;
  let reservation: Reservation | undefined;
  try {
    const credentials = presentedCredentials(request, params);
    clientId = claimedClientId(credentials);
    request.clientId = clientId;
    if (deps.methods && !deps.methods.includes(credentials.method)) throw new ClientAuthFailure('auth_method_not_accepted_here', credentials.method);
    client = clientId === undefined ? undefined : await deps.clients.find(clientId);
    reservation = await deps.hooks?.charge?.(client?.id, request);
    const authenticated = await verify(credentials, client, deps);
    await reservation?.refund();
    return authenticated;
  } catch (error) {
    if (!(error instanceof ClientAuthFailure)) throw error;
    if (!reservation) await deps.hooks?.charge?.(client?.id, request);
    throw invalidClient(usedBasic, { reason: error.code, client_id: clientId, ...(error.detail ? { detail: error.detail } : {}) });
  }
}
