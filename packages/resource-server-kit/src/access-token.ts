// JWT access-token validation, RFC 9068 §4 with the RFC 8725 hardening:
//   1. header: explicit `typ` at+jwt (§4 step 1, RFC 8725 §3.11), no `crit`/`zip`, a `kid` to select the key;
//   2. signature with the JWKS key chosen by `kid`, algorithm pinned by configuration — never taken
//      from the token — so `none` and HS256-keyed-with-the-public-key fail (RFC 8725 §2.1, §3.1);
//   3. `iss` exact, `aud` containing this API (an id_token, aud = client_id, fails), exp/nbf/iat with
//      the documented clock skew, and the RFC 9068 §2.2 required claims with their JSON types.
// Shared by every resource server (Gatehouse's /v1, `gatehouse protect`, any Node API using this package) and
// by the authorization server's own endpoints (/userinfo, /revoke, /introspect): it answers with a value, never
// a response, and each surface maps a refusal to its own challenge (RFC 6750 §3 on an API, its own format elsewhere).
import { decodeProtectedHeader, jwtVerify, type JWTPayload } from 'jose';
import type { Clock } from './clock.js';
import type { KeySource } from './key-source.js';

/** The signing algorithm Gatehouse signs access tokens with; pinned unless the caller names others. */
export const ACCESS_TOKEN_ALGORITHMS = ['ES256'] as const;
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
  /** RFC 8693 §4.1: the acting party of a delegated token (its `sub`, and its own `act` chain when nested). */
  act?: ActorClaim;
  /** cnf.jkt of a DPoP-bound token (RFC 9449 §6.1). */
  cnf_jkt?: string;
  kid: string;
}

export interface ActorClaim {
  sub: string;
  client_id?: string;
  act?: ActorClaim;
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

export interface AccessTokenVerifierOptions {
  keySource: KeySource;
  clock: Clock;
  /** The authorization server's issuer identifier, compared exactly. */
  issuer: string;
  /** The resource this server answers to: the token's `aud` must be, or contain, exactly this. */
  audience: string;
  /** Tolerance for exp/nbf/iat, seconds. */
  clockSkewSeconds: number;
  /** The longest access-token lifetime the issuer hands out, seconds: older or longer-lived tokens are refused. */
  maxTokenAgeSeconds: number;
  /** The accepted signature algorithms; default ES256 only. Never taken from the token. */
  algorithms?: readonly string[];
}

export function accessTokenVerifier(options: AccessTokenVerifierOptions): AccessTokenVerifier {
  const { keySource, clock, issuer, audience } = options;
  const algorithms = [...(options.algorithms ?? ACCESS_TOKEN_ALGORITHMS)];
  if (algorithms.some((a) => a === 'none' || a.startsWith('HS'))) throw new Error('access tokens are verified with asymmetric algorithms only');
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
          algorithms,
          typ: 'at+jwt',
          issuer,
          audience,
          clockTolerance: options.clockSkewSeconds,
          maxTokenAge: options.maxTokenAgeSeconds,
          requiredClaims: ['exp', 'iat', 'sub', 'jti', 'client_id'],
          currentDate: new Date(clock.now()),
        }));
      } catch (error) {
        return isKeySetUnavailable(error) ? { ok: false, reason: 'keys_unavailable', cause: error } : { ok: false, reason: 'invalid', ...describe(error) };
      }
      try {
        return { ok: true, claims: checkClaims(payload, kid, options.maxTokenAgeSeconds) };
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
  const act = payload.act === undefined ? undefined : actorOf(payload.act, 0);
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
    ...(act !== undefined ? { act } : {}),
    ...(jkt !== undefined ? { cnf_jkt: jkt } : {}),
    kid,
  };
}

/** RFC 8693 §4.1: an object naming the actor by `sub`, possibly nested; bounded so a deep chain costs nothing. */
function actorOf(value: unknown, depth: number): ActorClaim {
  const { sub, client_id: clientId, act } = (typeof value === 'object' && value !== null ? value : {}) as Record<string, unknown>;
  if (typeof sub !== 'string' || sub === '' || depth > 4 || (clientId !== undefined && typeof clientId !== 'string'))
    throw invalid('The access token act claim is malformed.', 'malformed_claim');
  return { sub, ...(clientId !== undefined ? { client_id: clientId as string } : {}), ...(act !== undefined ? { act: actorOf(act, depth + 1) } : {}) };
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
