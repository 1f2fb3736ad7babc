// DPoP proof validation (RFC 9449 4.3), usable by Gatehouse's token endpoint and by any resource server (pass the
// access token to check `ath`). The key is the one embedded in the proof; the algorithm is pinned to an
// asymmetric allow-list (never HS* or none); the proof is fresh (iat window), names this request (htm, htu),
// carries a server nonce where one is required (and a valid one whenever it carries any), and its jti is
// accepted once per key.
import { calculateJwkThumbprint, EmbeddedJWK, jwtVerify, type JWK, type JWTVerifyResult } from 'jose';
import { createHash } from 'node:crypto';
import type { Clock } from '../clock.js';
import type { DpopNonces } from './nonce.js';

/** base64url(SHA-256(value)): exactly RFC 9449 4.2's `ath`, and the stored form of a proof's jti. */
export const sha256 = (value: string): string => createHash('sha256').update(value).digest('base64url');

export const DPOP_ALGS = ['ES256', 'RS256', 'PS256'] as const;
/** How old a proof may be (RFC 9449 11.1 leaves the window to the server). */
const DPOP_PROOF_MAX_AGE_SECONDS = 60;

export class DpopProofError extends Error {
  override readonly name: string = 'DpopProofError';
}

/** RFC 9449 §8: the proof lacks a required nonce or carries one this server does not accept (use_dpop_nonce). */
export class DpopNonceError extends DpopProofError {
  override readonly name = 'DpopNonceError';
}

export interface DpopRequest {
  /** The raw DPoP header value(s). */
  header: string | string[] | undefined;
  method: string;
  /** The request URL without query and fragment (RFC 9449 4.3 point 9). */
  url: string;
  /** For a resource server: the access token the proof must be bound to (`ath`). */
  accessToken?: string;
  /** Whether a proof without a nonce is refused (a nonce that is present is checked regardless). */
  requireNonce?: boolean;
}

/**
 * Where spent proofs are remembered: `consume` records (key thumbprint, hashed jti) until `expiresAt` and
 * answers false when it was recorded already — atomically, so the same proof sent twice at once passes once.
 * Gatehouse keeps them in its database (shared by its instances); a single process may use memoryProofReplay.
 */
export interface ProofReplayStore {
  consume(jkt: string, jtiHash: string, expiresAt: Date): Promise<boolean>;
}

export interface DpopDeps {
  clock: Clock;
  clockSkewSeconds: number;
  proofs: ProofReplayStore;
  nonces: DpopNonces;
}

/**
 * Spent proofs in this process's memory, bounded: past `maxEntries` live entries a proof is refused (fail
 * closed) rather than forgotten early. Right for one process; several instances of one resource need a
 * shared store.
 */
export function memoryProofReplay(clock: Clock, maxEntries = 100_000): ProofReplayStore {
  const spent = new Map<string, number>();
  let sweptAt = 0;
  return {
    async consume(jkt, jtiHash, expiresAt) {
      const now = clock.now();
      if (now - sweptAt > 10_000 || spent.size >= maxEntries) {
        sweptAt = now;
        for (const [key, until] of spent) if (until <= now) spent.delete(key);
      }
      const key = `${jkt}.${jtiHash}`;
      const until = spent.get(key);
      if ((until !== undefined && until > now) || spent.size >= maxEntries) return false;
      spent.set(key, expiresAt.getTime());
      return true;
    },
  };
}

const PRIVATE_MEMBERS = ['d', 'p', 'q', 'dp', 'dq', 'qi', 'k'];

function singleProof(header: DpopRequest['header']): string {
  if (typeof header !== 'string' || header.includes(',') || header.trim() === '') throw new DpopProofError('exactly one DPoP proof is required');
  return header.trim();
}

/** Verifies the proof and returns the thumbprint of its key (RFC 7638), i.e. the token's cnf.jkt. */
export async function verifyDpopProof(request: DpopRequest, deps: DpopDeps): Promise<string> {
  const proof = singleProof(request.header);
  const now = Math.floor(deps.clock.now() / 1000);
  let verified: JWTVerifyResult;
  try {
    verified = await jwtVerify(proof, EmbeddedJWK, {
      typ: 'dpop+jwt',
      algorithms: [...DPOP_ALGS],
      requiredClaims: ['jti', 'htm', 'htu', 'iat'],
      maxTokenAge: DPOP_PROOF_MAX_AGE_SECONDS,
      clockTolerance: deps.clockSkewSeconds,
      currentDate: new Date(now * 1000),
    });
  } catch (error) {
    throw new DpopProofError(`the DPoP proof is invalid: ${(error as Error).message}`);
  }
  const { payload, protectedHeader } = verified;
  const jwk = protectedHeader.jwk as JWK;
  if (PRIVATE_MEMBERS.some((m) => m in jwk)) throw new DpopProofError('the DPoP proof key must be a public key');
  if (payload.iat! > now + deps.clockSkewSeconds) throw new DpopProofError('the DPoP proof is issued in the future');
  if (payload.htm !== request.method) throw new DpopProofError('htm does not match the request method');
  if (typeof payload.htu !== 'string' || withoutQuery(payload.htu) !== request.url) throw new DpopProofError('htu does not match the request URL');
  if (typeof payload.jti !== 'string' || payload.jti === '' || payload.jti.length > 512) throw new DpopProofError('the DPoP proof jti is invalid');
  if (request.accessToken !== undefined && payload.ath !== sha256(request.accessToken)) throw new DpopProofError('ath does not match the access token');
  checkNonce(payload.nonce, request.requireNonce === true, deps.nonces);
  const jkt = await calculateJwkThumbprint(jwk);
  const expiresAt = new Date((payload.iat! + DPOP_PROOF_MAX_AGE_SECONDS + 2 * deps.clockSkewSeconds) * 1000);
  if (!(await deps.proofs.consume(jkt, sha256(payload.jti), expiresAt))) throw new DpopProofError('the DPoP proof was already used');
  return jkt;
}

/** Before the jti is spent: the client retries with a new proof anyway, and a refused proof stores nothing. */
function checkNonce(nonce: unknown, required: boolean, nonces: DpopNonces): void {
  if (nonce === undefined) {
    if (required) throw new DpopNonceError('a DPoP nonce is required; use the one in the DPoP-Nonce header');
    return;
  }
  if (!nonces.accepts(nonce)) throw new DpopNonceError('the DPoP nonce is invalid or expired; use the one in the DPoP-Nonce header');
}

function withoutQuery(url: string): string | undefined {
  try {
    const u = new URL(url);
    return `${u.origin}${u.pathname}`;
  } catch {
    return undefined;
  }
}
