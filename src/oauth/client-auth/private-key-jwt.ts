// private_key_jwt (RFC 7523 3, OIDC Core 9): a JWT signed with a key the client registered.
// iss = sub = client_id; aud = our issuer or token endpoint URL, as a single string; exp required; jti
// single use across instances, remembered until the assertion expires; alg pinned to what the registered
// keys allow. Every refusal carries a reason code for the log (never the assertion itself).
import { createLocalJWKSet, errors, jwtVerify, type JWK, type JWTPayload, type JWTVerifyGetKey } from 'jose';
import type { Clock } from '../../clock.js';
import type { Config } from '../../config.js';
import { sha256 } from '../../crypto/random.js';
import { OutboundRefused } from '../../http/outbound/outbound-policy.js';
import type { Client } from '../../storage/repositories/clients-repository.js';
import type { ClientAssertionsRepository } from '../../storage/repositories/client-assertions-repository.js';
import { algorithmsForKeys, CLIENT_ASSERTION_ALGS, type ClientAssertionAlg } from '../clients/client-keys.js';
import { ClientAuthFailure } from './failure.js';
import type { RemoteKeySets } from './remote-key-sets.js';

/**
 * RFC 7523 3 leaves the lifetime to the server. Client libraries send up to an hour (Authlib: exp = iat +
 * 3600), so that is accepted; every jti is kept until its exp, which this bounds.
 */
const MAX_ASSERTION_LIFETIME_SECONDS = 3600;

export interface AssertionDeps {
  clock: Clock;
  config: Pick<Config, 'ISSUER' | 'CLOCK_SKEW'>;
  assertions: Pick<ClientAssertionsRepository, 'consume'>;
  remoteKeySets: Pick<RemoteKeySets, 'forUri'>;
}

function keysOf(client: Client, remote: AssertionDeps['remoteKeySets']): { keySet: JWTVerifyGetKey; algorithms: ClientAssertionAlg[] } {
  if (client.jwks) {
    const keys = client.jwks.keys as JWK[];
    return { keySet: createLocalJWKSet({ keys }), algorithms: algorithmsForKeys(keys) };
  }
  // The document is not known in advance, so every asymmetric algorithm we accept is allowed; never HS*.
  if (client.jwksUri) return { keySet: remote.forUri(client.jwksUri), algorithms: [...CLIENT_ASSERTION_ALGS] };
  throw new ClientAuthFailure('client_keys_missing', 'client has no registered keys');
}

function verificationFailure(error: unknown): ClientAuthFailure {
  if (error instanceof OutboundRefused) return new ClientAuthFailure(`jwks_uri_${error.code}`, `jwks_uri fetch refused: ${error.message}`);
  if (error instanceof errors.JWTExpired) return new ClientAuthFailure('assertion_expired', 'client assertion expired');
  if (error instanceof errors.JWTClaimValidationFailed)
    return new ClientAuthFailure('assertion_claim_invalid', `client assertion claim ${error.claim} invalid (${error.reason})`);
  if (error instanceof errors.JWKSNoMatchingKey || error instanceof errors.JWSSignatureVerificationFailed) {
    return new ClientAuthFailure('assertion_signature_invalid', 'client assertion not signed by a registered key');
  }
  if (error instanceof errors.JOSEAlgNotAllowed) return new ClientAuthFailure('assertion_alg_not_allowed', 'client assertion algorithm not allowed');
  const code = error instanceof errors.JOSEError ? error.code : 'unknown';
  return new ClientAuthFailure('assertion_invalid', `client assertion rejected (${code})`);
}

/** exp at most an hour after iat and after now (each with the clock skew); iat not in the future. */
function checkLifetime(payload: JWTPayload, now: number, skew: number): void {
  const exp = payload.exp!;
  if (exp - now > MAX_ASSERTION_LIFETIME_SECONDS + skew) throw new ClientAuthFailure('assertion_lifetime_too_long', 'client assertion lives too long (exp)');
  if (payload.iat === undefined) return;
  if (payload.iat > now + skew) throw new ClientAuthFailure('assertion_iat_in_future', 'client assertion iat is in the future');
  if (exp - payload.iat > MAX_ASSERTION_LIFETIME_SECONDS + skew)
    throw new ClientAuthFailure('assertion_lifetime_too_long', 'client assertion lives too long (exp - iat)');
}

export async function verifyClientAssertion(client: Client, assertion: string, deps: AssertionDeps): Promise<void> {
  const now = Math.floor(deps.clock.now() / 1000);
  const skew = deps.config.CLOCK_SKEW;
  let payload: JWTPayload;
  try {
    const { keySet, algorithms } = keysOf(client, deps.remoteKeySets);
    ({ payload } = await jwtVerify(assertion, keySet, {
      algorithms,
      issuer: client.id,
      subject: client.id,
      audience: [deps.config.ISSUER, `${deps.config.ISSUER}/token`],
      requiredClaims: ['iss', 'sub', 'aud', 'exp', 'jti'],
      clockTolerance: skew,
      currentDate: new Date(now * 1000),
    }));
  } catch (error) {
    if (error instanceof ClientAuthFailure) throw error;
    throw verificationFailure(error);
  }
  // FAPI 2.0 5.3.2.1-8 and RFC 7523 3: one audience value, not an array that merely contains ours.
  if (typeof payload.aud !== 'string') throw new ClientAuthFailure('assertion_claim_invalid', 'client assertion aud must be a single string');
  checkLifetime(payload, now, skew);
  if (typeof payload.jti !== 'string' || payload.jti === '' || payload.jti.length > 512)
    throw new ClientAuthFailure('assertion_claim_invalid', 'client assertion jti is invalid');
  const consumed = await deps.assertions.consume(client.id, sha256(payload.jti), new Date((payload.exp! + skew) * 1000));
  if (!consumed) throw new ClientAuthFailure('assertion_replayed', 'client assertion replayed');
}
