// Client authentication for /token, /revoke, /introspect (RFC 6749 2.3, 3.2.1; RFC 7523; RFC 7009 2.1;
// RFC 7662 2.1). Only the method the client registered is accepted. Every failure is the same
// 401 invalid_client (see failure.ts); `hooks` is where rate limiting counts and blocks failures.
import type { Core } from '../../core.js';
import type { Client, ClientsRepository, TokenEndpointAuthMethod } from '../../storage/clients-repository.js';
import { clientAssertionsRepository } from '../../storage/client-assertions-repository.js';
import type { FormParameters } from '../form-parameters.js';
import { isBasic } from './basic.js';
import { ClientAuthFailure, invalidClient } from './failure.js';
import { presentedCredentials, type ClientAuthRequest, type PresentedCredentials } from './presented.js';
import { verifyClientAssertion, type AssertionDeps } from './private-key-jwt.js';
import { secretMatches } from './secret.js';
import { rateLimitedClientAuth } from './rate-limited.js';
import { decodeJwt } from 'jose';

export type { ClientAuthRequest } from './presented.js';

export interface ClientAuthHooks {
  /** Called before any check with the claimed client id; may throw (e.g. 429 while blocked). */
  beforeAttempt?(clientId: string | undefined, request: ClientAuthRequest): Promise<void>;
  /** Called once per failed attempt, with the internal reason (never shown to the caller). */
  onFailure?(clientId: string | undefined, reason: string, request: ClientAuthRequest): Promise<void>;
}

export interface ClientAuthDeps extends AssertionDeps {
  clients: Pick<ClientsRepository, 'find'>;
  /** Methods this endpoint accepts (default: all); e.g. /introspect refuses public clients. */
  methods?: readonly TokenEndpointAuthMethod[];
  hooks?: ClientAuthHooks;
}

export function clientAuthDeps(core: Core, options: Pick<ClientAuthDeps, 'methods' | 'hooks'> = {}): ClientAuthDeps {
  return {
    clock: core.clock,
    config: core.config,
    clients: core.clients,
    assertions: clientAssertionsRepository(core.db, core.clock),
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
    throw new ClientAuthFailure('client assertion is not a JWT');
  }
}

async function verify(credentials: PresentedCredentials, client: Client | undefined, deps: ClientAuthDeps): Promise<Client> {
  const registered = client?.authMethod === credentials.method;
  switch (credentials.method) {
    case 'client_secret_basic':
    case 'client_secret_post':
      // Compare even when the client is unknown or registered another method: same work, same timing.
      if (!secretMatches(registered ? client!.secretHash : undefined, credentials.secret)) throw new ClientAuthFailure('wrong secret or unknown client');
      return client!;
    case 'private_key_jwt':
      if (!registered) throw new ClientAuthFailure('unknown client or not registered for private_key_jwt');
      await verifyClientAssertion(client!, credentials.assertion, deps);
      return client!;
    case 'none':
      if (!registered || client!.type !== 'public') throw new ClientAuthFailure('unknown client or not a public client');
      return client!;
  }
}

/** The authenticated (or, for public clients, identified) client; throws 400 invalid_request or 401 invalid_client. */
export async function authenticateClient(request: ClientAuthRequest, params: FormParameters, deps: ClientAuthDeps): Promise<Client> {
  const usedBasic = isBasic(request.headers.authorization);
  let clientId: string | undefined;
  try {
    const credentials = presentedCredentials(request, params);
    clientId = claimedClientId(credentials);
    if (deps.methods && !deps.methods.includes(credentials.method)) throw new ClientAuthFailure(`${credentials.method} is not accepted here`);
    await deps.hooks?.beforeAttempt?.(clientId, request);
    const client = clientId === undefined ? undefined : await deps.clients.find(clientId);
    return await verify(credentials, client, deps);
  } catch (error) {
    if (!(error instanceof ClientAuthFailure)) throw error;
    // The reason is for the operator only; the presented credentials are never logged.
    request.log?.warn({ client_id: clientId, reason_code: error.code, reason: error.reason }, 'client authentication refused');
    await deps.hooks?.onFailure?.(clientId, error.reason, request);
    throw invalidClient(usedBasic);
  }
}
