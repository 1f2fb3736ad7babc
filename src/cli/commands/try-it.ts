// What `clients create` prints next to a new authorization_code client so it can be tried at once: an
// authorize URL with a fresh PKCE pair (RFC 7636, S256) and the token request that redeems its code.
import { createHash } from 'node:crypto';
import { randomToken } from '../../crypto/random.js';
import type { Client } from '../../storage/repositories/clients-repository.js';

export interface TryIt {
  authorize_url: string;
  code_verifier: string;
  state: string;
  /** The curl command that redeems the code (replace CODE); absent for private_key_jwt clients. */
  token_request?: string;
}

/** How curl authenticates this client at /token, if it can in one flag. */
function curlAuth(client: Client, secret: string | undefined): string | undefined {
  if (client.authMethod === 'none') return `-d client_id=${client.id}`;
  if (secret === undefined) return undefined;
  const quote = (value: string) => `'${value.replace(/'/g, `'\\''`)}'`;
  if (client.authMethod === 'client_secret_basic') return `-u ${quote(`${client.id}:${secret}`)}`;
  if (client.authMethod === 'client_secret_post') return `-d client_id=${client.id} --data-urlencode client_secret=${quote(secret)}`;
  return undefined;
}

export function tryIt(client: Client, issuer: string, secret?: string): TryIt | undefined {
  if (!client.grantTypes.includes('authorization_code') || client.redirectUris.length === 0) return undefined;
  const redirectUri = client.redirectUris[0]!;
  const verifier = randomToken(32);
  const state = randomToken(12);
  const url = new URL(`${issuer}/authorize`);
  url.search = new URLSearchParams({
    response_type: 'code',
    client_id: client.id,
    redirect_uri: redirectUri,
    scope: client.scopes.join(' '),
    state,
    ...(client.scopes.includes('openid') ? { nonce: randomToken(12) } : {}),
    code_challenge: createHash('sha256').update(verifier).digest('base64url'),
    code_challenge_method: 'S256',
  }).toString();
  const auth = curlAuth(client, secret);
  return {
    authorize_url: url.toString(),
    code_verifier: verifier,
    state,
    ...(auth
      ? {
          token_request: `curl -s ${issuer}/token ${auth} -d grant_type=authorization_code -d code=CODE --data-urlencode redirect_uri=${redirectUri} -d code_verifier=${verifier}`,
        }
      : {}),
  };
}
