// Bearer credentials of dynamic registration: the initial access token (RFC 7591 3) for POST /register and
// the registration access token (RFC 7592 3) for one client's configuration URI. Both are stored hashed.
import { OAuthError } from '../../http/errors.js';
import { safeEqual, sha256 } from '../../crypto/random.js';
import type { Client, ClientsRepository } from '../../storage/repositories/clients-repository.js';
import type { InitialAccessTokensRepository } from '../../storage/repositories/initial-access-tokens-repository.js';
import type { RegistrationPolicy } from './policy.js';

// RFC 6750 3.1: a bad or missing token is 401 with a Bearer challenge. One answer for every failure,
// so the endpoint does not reveal whether a client id exists (RFC 7592 2.1).
const invalidToken = () =>
  new OAuthError('invalid_token', 'The access token is missing, invalid or expired.', {
    status: 401,
    headers: { 'www-authenticate': 'Bearer realm="gatehouse", error="invalid_token"' },
  });

function bearerToken(authorization: string | undefined): string {
  const match = /^Bearer ([A-Za-z0-9._~+/-]+=*)$/i.exec(authorization ?? '');
  if (!match) throw invalidToken();
  return match[1]!;
}

/**
 * The id audit events name an initial access token by (the CLI prints it beside the token): the start of its
 * SHA-256, which is all that is stored of it. It identifies the token, and cannot be turned back into it.
 */
export const initialAccessTokenId = (tokenHash: string): string => tokenHash.slice(0, 16);

/** The live token's hash and policy; a use is spent only when the client is created (see spendInitialAccessToken). */
export async function requireInitialAccessToken(
  authorization: string | undefined,
  tokens: Pick<InitialAccessTokensRepository, 'peek'>,
): Promise<{ tokenHash: string; policy: RegistrationPolicy }> {
  const tokenHash = sha256(bearerToken(authorization));
  const found = await tokens.peek(tokenHash);
  if (!found) throw invalidToken();
  return { tokenHash, policy: { grantTypes: found.allowedGrantTypes, scopes: found.allowedScopes } };
}

/** Spends one use; a token used up by a parallel registration since it was read is the same 401. */
export async function spendInitialAccessToken(tokenHash: string, tokens: Pick<InitialAccessTokensRepository, 'consume'>): Promise<RegistrationPolicy> {
  const spent = await tokens.consume(tokenHash);
  if (!spent) throw invalidToken();
  return { grantTypes: spent.allowedGrantTypes, scopes: spent.allowedScopes };
}

export async function requireRegistrationAccess(
  authorization: string | undefined,
  clientId: string,
  clients: Pick<ClientsRepository, 'find'>,
): Promise<Client> {
  const presented = sha256(bearerToken(authorization));
  const client = await clients.find(clientId);
  if (!client?.registrationTokenHash || !safeEqual(presented, client.registrationTokenHash)) throw invalidToken();
  return client;
}
