// JWT access-token validation, RFC 9068 §4 with the RFC 8725 hardening:
//   1. header: explicit `typ` at+jwt (§4 step 1, RFC 8725 §3.11), no `crit`/`zip`, a `kid` to select the key;
//   2. signature with the JWKS key chosen by `kid`, algorithm pinned by configuration — never taken
//      from the token — so `none` and HS256-keyed-with-the-public-key fail (RFC 8725 §2.1, §3.1);
//   3. `iss` exact, `aud` containing this API (an id_token, aud = client_id, fails), exp/nbf/iat with
//      the documented clock skew, and the RFC 9068 §2.2 required claims with their JSON types.
// Shared by the resource API and the authorization server's own endpoints (/userinfo, /revoke,
// /introspect): it answers with a value, never a response, and each surface maps a refusal to its own
// challenge (RFC 6750 §3 on the API, its own error format elsewhere).
import { decodeProtectedHeader, jwtVerify, type JWTPayload } from 'jose';
import type { Clock } from '../clock.js';
import type { Config } from '../config.js';
import type { KeySource } from './key-source.js';

/** The only signing algorithm accepted for access tokens (docs/token-formats.md). */
const ACCESS_TOKEN_ALGORITHMS = ['ES256'] as const;
const MAX_KID_LENGTH = 256;

export interface AccessTokenClaims {
  iss: string;
  aud: string | string[];
  sub: string;
  client_id: string;
  jti: string;
  exp: number;
  iat: number;
  scope: string[];
  auth_time?: number;
  /** RFC 9068 §2.2.1: how the user authenticated (RFC 8176 amr, OIDC acr), when the sign-in recorded it. */
  amr?: string[];
  acr?: string;
  /** cnf.jkt of a DPoP-bound token (RFC 9449 §6.1). */
  cnf_jkt?: string;
  /** RFC 8693 §4.1: who acts for the subject (token exchange), as signed; objects only. */
  act?: Record<string, unknown>;
  kid: string;
}

/**
 * Why a token was refused, for the refusal log line (docs/security/token-verification.md): a fixed code, never
 * anything read from the token. The caller is shown only `description`.
 */
export type TokenRefusal =
  | 'malformed'
  | 'unsupported_header'
  | 'unknown_kid'
  | 'algorithm'
  | 'signature'
  | 'typ'
  | 'issuer'
  | 'audience'
  | 'expired'
  | 'issued_too_long_ago'
  | 'not_yet_valid'
  | 'missing_claim'
  | 'lifetime'
  | 'malformed_claim'
  | 'cnf'
  | 'invalid';

/**
 * `invalid`: the token is at fault; `description` is a fixed sentence safe to show the caller, `refusal` the
 * reason for the log.
 * `keys_unavailable`: the signing keys could not be loaded (remote JWKS down): the token is not at fault.
 */
export type AccessTokenVerification =
  | { ok: true; claims: AccessTokenClaims }
  | { ok: false; reason: 'invalid'; description: string; refusal: TokenRefusal }
  | { ok: false; reason: 'keys_unavailable'; cause: unknown };

export interface AccessTokenVerifier {
  verify(token: string): Promise<AccessTokenVerification>;
}

/** Thrown inside this module only; verify() turns it into a value. */
class InvalidToken extends Error {
  constructor(
    description: string,
    readonly refusal: TokenRefusal,
  ) {
    super(description);
  }
}

export function accessTokenVerifier(deps: {
  keySource: KeySource;
  clock: Clock;
  config: Pick<Config, 'ISSUER' | 'API_AUDIENCE' | 'CLOCK_SKEW' | 'ACCESS_TOKEN_TTL'>;
  /** The audience this API answers to; default API_AUDIENCE (the admin API passes `{ISSUER}/admin`). */
  audience?: string;
}): AccessTokenVerifier {
  const { keySource, clock, config } = deps;
  const audience = deps.audience ?? config.API_AUDIENCE;
  return {
    async verify(token) {
      let kid: string;
      try {
        kid = checkHeader(token);
      } catch (error) {
        return refusal(error);
      }
      let payload: JWTPayload;
      try {
        ({ payload } = await jwtVerify(token, keySource.getKey, {
          algorithms: [...ACCESS_TOKEN_ALGORITHMS],
          typ: 'at+jwt',
          issuer: config.ISSUER,
          audience,
          clockTolerance: config.CLOCK_SKEW,
          maxTokenAge: config.ACCESS_TOKEN_TTL,
          requiredClaims: ['exp', 'iat', 'sub', 'jti', 'client_id'],
          currentDate: new Date(clock.now()),
        }));
      } catch (error) {
        return isKeySetUnavailable(error) ? { ok: false, reason: 'keys_unavailable', cause: error } : { ok: false, reason: 'invalid', ...describe(error) };
      }
      try {
        return { ok: true, claims: checkClaims(payload, kid, config.ACCESS_TOKEN_TTL) };
      } catch (error) {
        return refusal(error);
      }
    },
  };
}

function checkHeader(token: string): string {
  let header: ReturnType<typeof decodeProtectedHeader>;
  try {
    header = decodeProtectedHeader(token);
  } catch {
    throw invalid('The access token is not a well-formed JWS.', 'malformed');
  }
  // RFC 7515 §4.1.11: no extension is understood here, so any `crit` makes the token unusable.
  if ('crit' in header) throw invalid('The access token uses unsupported critical header parameters.', 'unsupported_header');
  if ('zip' in header || 'enc' in header) throw invalid('The access token is not a plain signed JWT.', 'unsupported_header');
  const kid = header.kid;
  if (typeof kid !== 'string' || kid.length === 0 || kid.length > MAX_KID_LENGTH) {
    throw invalid('The access token does not name a known signing key.', 'unknown_kid');
  }
  return kid;
}

function checkClaims(payload: JWTPayload, kid: string, maxLifetime: number): AccessTokenClaims {
  const { sub, jti, exp, iat } = payload;
  const clientId = payload.client_id;
  const scope = payload.scope;
  const authTime = payload.auth_time;
  if (typeof sub !== 'string' || sub === '' || typeof jti !== 'string' || jti === '' || typeof clientId !== 'string' || clientId === '') {
    throw invalid('The access token lacks a required claim.', 'missing_claim');
  }
  if (typeof exp !== 'number' || typeof iat !== 'number' || !Number.isInteger(exp) || exp - iat > maxLifetime) {
    throw invalid('The access token lifetime is not acceptable.', 'lifetime');
  }
  if (scope !== undefined && typeof scope !== 'string') throw invalid('The access token scope is malformed.', 'malformed_claim');
  // RFC 9449 §6.1: the only confirmation method understood is a JWK thumbprint; the scheme and the proof
  // are checked by the surface that knows the request.
  const jkt = confirmationKey(payload.cnf);
  if (authTime !== undefined && typeof authTime !== 'number') throw invalid('The access token auth_time is malformed.', 'malformed_claim');
  const { amr, acr } = payload;
  if (amr !== undefined && !(Array.isArray(amr) && amr.every((v) => typeof v === 'string')))
    throw invalid('The access token amr is malformed.', 'malformed_claim');
  if (acr !== undefined && typeof acr !== 'string') throw invalid('The access token acr is malformed.', 'malformed_claim');
  const { act } = payload;
  if (act !== undefined && (typeof act !== 'object' || act === null || Array.isArray(act)))
    throw invalid('The access token act is malformed.', 'malformed_claim');
  return {
    iss: payload.iss!,
    aud: payload.aud!,
    sub,
    client_id: clientId,
    jti,
    exp,
    iat,
    scope: scope ? scope.split(' ').filter(Boolean) : [],
    ...(authTime !== undefined ? { auth_time: authTime } : {}),
    ...(amr !== undefined ? { amr: amr as string[] } : {}),
    ...(acr !== undefined ? { acr: acr as string } : {}),
    ...(jkt !== undefined ? { cnf_jkt: jkt } : {}),
    ...(act !== undefined ? { act: act as Record<string, unknown> } : {}),
    kid,
  };
}

function confirmationKey(cnf: unknown): string | undefined {
  if (cnf === undefined) return undefined;
  const jkt = typeof cnf === 'object' && cnf !== null && Object.keys(cnf).length === 1 ? (cnf as { jkt?: unknown }).jkt : undefined;
  if (typeof jkt !== 'string' || !/^[A-Za-z0-9_-]{43}$/.test(jkt)) throw invalid('The access token confirmation (cnf) is not understood.', 'cnf');
  return jkt;
}

const invalid = (description: string, refusal: TokenRefusal) => new InvalidToken(description, refusal);

function refusal(error: unknown): AccessTokenVerification {
  if (error instanceof InvalidToken) return { ok: false, reason: 'invalid', description: error.message, refusal: error.refusal };
  throw error;
}

/** A fixed sentence per failure class and its log reason; jose's messages may quote claim values, so they are not passed on. */
function describe(error: unknown): { description: string; refusal: TokenRefusal } {
  const { code, claim } = error as { code?: string; claim?: string };
  switch (code) {
    case 'ERR_JWT_EXPIRED':
      return { description: 'The access token has expired.', refusal: claim === 'iat' ? 'issued_too_long_ago' : 'expired' };
    case 'ERR_JWT_CLAIM_VALIDATION_FAILED':
      return {
        description: 'The access token was not issued for this API or is not yet valid.',
        refusal: claimRefusal(error as { claim?: string; reason?: string }),
      };
    case 'ERR_JOSE_ALG_NOT_ALLOWED':
      return { description: 'The access token is signed with an algorithm this API does not accept.', refusal: 'algorithm' };
    case 'ERR_JWKS_NO_MATCHING_KEY':
      return { description: 'The access token does not name a known signing key.', refusal: 'unknown_kid' };
    case 'ERR_JWS_SIGNATURE_VERIFICATION_FAILED':
      return { description: 'The access token signature is invalid.', refusal: 'signature' };
    case 'ERR_JWS_INVALID':
    case 'ERR_JWT_INVALID':
      return { description: 'The access token is invalid.', refusal: 'malformed' };
    default:
      return { description: 'The access token is invalid.', refusal: 'invalid' };
  }
}

/** jose names the claim (or the `typ` header) a claim check failed on. */
function claimRefusal({ claim, reason }: { claim?: string; reason?: string }): TokenRefusal {
  if (reason === 'missing') return 'missing_claim';
  switch (claim) {
    case 'aud':
      return 'audience';
    case 'iss':
      return 'issuer';
    case 'typ':
      return 'typ';
    case 'nbf':
    case 'iat':
      return 'not_yet_valid';
    default:
      return 'invalid';
  }
}

/** The JWKS could not be fetched (remote down, timeout, garbage): the token is not at fault, so 503. */
function isKeySetUnavailable(error: unknown): boolean {
  const code = (error as { code?: string })?.code;
  return code === 'ERR_JWKS_TIMEOUT' || code === 'ERR_JWKS_INVALID' || typeof code !== 'string' || !code.startsWith('ERR_J');
}
