// private_key_jwt (RFC 7523 3, OIDC Core 9): a JWT signed with a key the client registered.
// iss = sub = client_id; aud = our issuer or token endpoint URL, as a single string; exp required and at
// most five minutes ahead; jti single use across instances; alg pinned to what the registered keys allow.
import { createLocalJWKSet, createRemoteJWKSet, jwtVerify, type JWK, type JWTVerifyGetKey } from 'jose';
import type { Clock } from '../../clock.js';
import type { Config } from '../../config.js';
import { sha256 } from '../../crypto/random.js';
import type { Client } from '../../storage/clients-repository.js';
import type { ClientAssertionsRepository } from '../../storage/client-assertions-repository.js';
import { algorithmsForKeys, CLIENT_ASSERTION_ALGS, type ClientAssertionAlg } from '../clients/client-keys.js';
import { ClientAuthFailure } from './failure.js';

/** RFC 7523 3 leaves the lifetime to the server; a short one bounds the replay table. */
export const MAX_ASSERTION_LIFETIME_SECONDS = 300;

export interface AssertionDeps {
  clock: Clock;
  config: Pick<Config, 'ISSUER' | 'CLOCK_SKEW'>;
  assertions: Pick<ClientAssertionsRepository, 'consume'>;
}

const remoteKeySets = new Map<string, JWTVerifyGetKey>();

function keysOf(client: Client): { keySet: JWTVerifyGetKey; algorithms: ClientAssertionAlg[] } {
  if (client.jwks) {
    const keys = client.jwks.keys as JWK[];
    return { keySet: createLocalJWKSet({ keys }), algorithms: algorithmsForKeys(keys) };
  }
  if (client.jwksUri) {
    let keySet = remoteKeySets.get(client.jwksUri);
    if (!keySet) remoteKeySets.set(client.jwksUri, (keySet = createRemoteJWKSet(new URL(client.jwksUri), { timeoutDuration: 3000 })));
    // The document is not known in advance, so every asymmetric algorithm we accept is allowed; never HS*.
    return { keySet, algorithms: [...CLIENT_ASSERTION_ALGS] };
  }
  throw new ClientAuthFailure('no_registered_keys');
}

export async function verifyClientAssertion(client: Client, assertion: string, deps: AssertionDeps): Promise<void> {
  const { keySet, algorithms } = keysOf(client);
  const now = Math.floor(deps.clock.now() / 1000);
  let payload;
  try {
    ({ payload } = await jwtVerify(assertion, keySet, {
      algorithms,
      issuer: client.id,
      subject: client.id,
      audience: [deps.config.ISSUER, `${deps.config.ISSUER}/token`],
      requiredClaims: ['iss', 'sub', 'aud', 'exp', 'jti'],
      clockTolerance: deps.config.CLOCK_SKEW,
      currentDate: new Date(now * 1000),
    }));
  } catch (error) {
    throw new ClientAuthFailure('assertion_rejected', (error as Error).message);
  }
  // FAPI 2.0 5.3.2.1-8 and RFC 7523 3: one audience value, not an array that merely contains ours.
  if (typeof payload.aud !== 'string') throw new ClientAuthFailure('assertion_audience_not_single');
  if (payload.exp! > now + MAX_ASSERTION_LIFETIME_SECONDS + deps.config.CLOCK_SKEW) throw new ClientAuthFailure('assertion_lifetime_too_long');
  if (typeof payload.jti !== 'string' || payload.jti === '' || payload.jti.length > 512) throw new ClientAuthFailure('assertion_jti_invalid');
  const consumed = await deps.assertions.consume(client.id, sha256(payload.jti), new Date((payload.exp! + deps.config.CLOCK_SKEW) * 1000));
  if (!consumed) throw new ClientAuthFailure('assertion_replayed');
}
