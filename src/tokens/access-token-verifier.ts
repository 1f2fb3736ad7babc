// JWT access-token validation (RFC 9068 §4 with the RFC 8725 hardening) lives in the resource-server kit
// (packages/resource-server-kit/src/access-token.ts), so that Gatehouse's own endpoints, /v1, `gatehouse protect`
// and every API using @gatehouse/resource-server run one implementation. This module binds it to Gatehouse's
// configuration: iss = ISSUER, aud = API_AUDIENCE unless told otherwise, CLOCK_SKEW, ACCESS_TOKEN_TTL.
import { accessTokenVerifier as verifierOf, type AccessTokenVerifier } from '@gatehouse/resource-server';
import type { Clock } from '../clock.js';
import type { Config } from '../config.js';
import type { KeySource } from './key-source.js';

export type { AccessTokenClaims, AccessTokenVerification, AccessTokenVerifier, TokenRefusal } from '@gatehouse/resource-server';

export function accessTokenVerifier(deps: {
  keySource: KeySource;
  clock: Clock;
  config: Pick<Config, 'ISSUER' | 'API_AUDIENCE' | 'CLOCK_SKEW' | 'ACCESS_TOKEN_TTL'>;
  /** The audience this API answers to; default API_AUDIENCE (the admin API passes `{ISSUER}/admin`). */
  audience?: string;
}): AccessTokenVerifier {
  const { config } = deps;
  return verifierOf({
    keySource: deps.keySource,
    clock: deps.clock,
    issuer: config.ISSUER,
    audience: deps.audience ?? config.API_AUDIENCE,
    clockSkewSeconds: config.CLOCK_SKEW,
    maxTokenAgeSeconds: config.ACCESS_TOKEN_TTL,
  });
}
