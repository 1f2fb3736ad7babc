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

/** The proof is signed by another key than the one the access token is bound to (RFC 9449 §7.1). */
export class DpopKeyMismatch extends DpopProofError {
  override readonly name = 'DpopKeyMismatch';
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
  /** For a resource server: the token's cnf.jkt; a proof of another key is refused before it is spent. */
  boundKey?: string;
  /** Who the proof is spent for (the token's client), passed to the replay store. */
  partition?: string;
}

/**
 * Where spent proofs are remembered: `consume` records (key thumbprint, hashed jti) until `expiresAt` and
 * answers false when it was recorded already — atomically, so the same proof sent twice at once passes once.
 * `partition` is who the proof is spent for (the client of the verified token it is bound to), for a store
 * that budgets its room per client. Gatehouse keeps them in its database (shared by its instances); a single
 * process may use memoryProofReplay.
 */
export interface ProofReplayStore {
  consume(jkt: string, jtiHash: string, expiresAt: Date, partition?: string): Promise<boolean>;
}

export interface DpopDeps {
  clock: Clock;
  clockSkewSeconds: number;
  proofs: ProofReplayStore;
  nonces: DpopNonces;
}

export interface MemoryProofReplayOptions {
  /**
   * Live entries in all (default 100,000). Past it only a client holding less than its fair share
   * (maxEntries / clients present) is admitted, and nothing past twice this: a proof is refused (fail closed),
   * never forgotten early.
   */
  maxEntries?: number;
  /**
   * Live entries of one partition (client; its key when none is given), default a tenth of maxEntries: one
   * client sending proofs as fast as it can exhausts its own budget and is refused, the others are not.
   */
  maxPerPartition?: number;
}

/** The store refused to record a proof because its room (or its partition's) is spent: not the proof's fault. */
export class ProofReplayFull extends Error {
  override readonly name = 'ProofReplayFull';
}

/**
 * Spent proofs in this process's memory, bounded per partition (client) and in all, with a fair share: when the
 * total is spent, the partitions holding at least maxEntries / (number of partitions) are refused and the others
 * — a client arriving last included — still admitted, so ten clients each filling their own budget cannot lock
 * an eleventh out. Admitting them past the total is bounded too: never more than twice maxEntries. An entry lives until
 * the proof could no longer be accepted anyway (its iat window), and only proofs that were verified and bound
 * to a verified token reach the store (verifyDpopProof checks everything, the key included, before it consumes),
 * so filling it takes valid tokens of this resource, and a client that sends many only spends its own budget.
 * Right for one process; several instances of one resource need a shared store.
 */
export function memoryProofReplay(clock: Clock, options: MemoryProofReplayOptions | number = {}): ProofReplayStore {
  const { maxEntries = 100_000, maxPerPartition = Math.max(1, Math.floor((typeof options === 'number' ? options : (options.maxEntries ?? 100_000)) / 10)) } =
    typeof options === 'number' ? { maxEntries: options } : options;
  /** partition → (jkt.jtiHash → until, ms). */
  const partitions = new Map<string, Map<string, number>>();
  let total = 0;
  let sweptAt = 0;
  const sweep = (now: number) => {
    sweptAt = now;
    for (const [name, spent] of partitions) {
      for (const [key, until] of spent)
        if (until <= now) {
          spent.delete(key);
          total -= 1;
        }
      if (spent.size === 0) partitions.delete(name);
    }
  };
  return {
    async consume(jkt, jtiHash, expiresAt, partition = jkt) {
      const now = clock.now();
      let spent = partitions.get(partition);
      // A sweep walks every entry: when full, at most once a second (a refused client retries later anyway), so
      // a full store does not cost a walk of 100,000 entries per request.
      const full = total >= maxEntries || (spent !== undefined && spent.size >= maxPerPartition);
      if (now - sweptAt > 10_000 || (full && now - sweptAt > 1_000)) {
        sweep(now);
        spent = partitions.get(partition);
      }
      const key = `${jkt}.${jtiHash}`;
      const until = spent?.get(key);
      if (until !== undefined && until > now) return false;
      if (spent !== undefined && spent.size >= maxPerPartition) throw new ProofReplayFull('too many DPoP proofs in flight for this client');
      if (total >= maxEntries) {
        // Fair share of the spent room: only the partitions holding at least as much as an equal split refused.
        const share = maxEntries / (partitions.size + (spent === undefined ? 1 : 0));
        if ((spent?.size ?? 0) >= share || total >= 2 * maxEntries) throw new ProofReplayFull('too many DPoP proofs in flight at this resource');
      }
      if (spent === undefined) partitions.set(partition, (spent = new Map()));
      spent.set(key, expiresAt.getTime());
      total += 1;
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
  // Spent last: a proof that is refused for any reason (another key than the token's included) takes no room.
  if (request.boundKey !== undefined && jkt !== request.boundKey)
    throw new DpopKeyMismatch('the DPoP proof is not signed by the key the access token is bound to');
  // Until jose refuses it anyway (iat more than max age + tolerance in the past), plus the second `now` rounds off.
  const expiresAt = new Date((payload.iat! + DPOP_PROOF_MAX_AGE_SECONDS + deps.clockSkewSeconds + 1) * 1000);
  let fresh: boolean;
  try {
    fresh = await deps.proofs.consume(jkt, sha256(payload.jti), expiresAt, request.partition);
  } catch (error) {
    if (error instanceof ProofReplayFull) throw new DpopProofError('the DPoP proof cannot be recorded now; retry later');
    throw error;
  }
  if (!fresh) throw new DpopProofError('the DPoP proof was already used');
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
