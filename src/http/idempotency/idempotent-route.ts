// The one idempotency mechanism every POST route can opt into (docs/idempotency.md,
// draft-ietf-httpapi-idempotency-key-header). Spread `idempotency.route(options, operation)` into the
// route options: it supplies the handler and an onSend hook. The operation receives a transaction and
// writes through it; its writes and the key's completion record commit together.
//
//   success  → response bytes stored in the operation's transaction, then sent
//   4xx      → the operation's writes roll back; the rendered problem is stored and replayed too
//   5xx      → nothing stored; the reservation is released so a retry runs afresh
//   replay   → stored status, headers and body byte for byte, plus `Idempotent-Replayed: true`
//
// A route whose effect is one insert may also pass a SingleWritePlan: for a key seen for the first time,
// reservation, write and completion are then one statement (insertCompletedWith), and the general path
// above only runs when the key already exists.
import type { FastifyReply, FastifyRequest, RouteGenericInterface, onSendHookHandler } from 'fastify';
import type { Clock } from '../../clock.js';
import type { Config } from '../../config.js';
import type { Store } from '../../storage/store.js';
import type { Principal } from '../principal.js';
import { createHmac, hkdfSync } from 'node:crypto';
import { sha256 } from '../../crypto/random.js';
import { ProblemError } from '../errors.js';
import type { GuardedWrite, IdempotencyIdentity, StoredResponse } from '../../storage/repositories/idempotency-keys-repository.js';
import { canonicalJson } from './canonical-json.js';
import { parseIdempotencyKey, requireIdempotencyKey } from './key-header.js';
import { inUse, reserveKey } from './reservation.js';

export const REPLAY_HEADER = 'idempotent-replayed';

/** How often expired idempotency records are purged. */
export const IDEMPOTENCY_PURGE_INTERVAL_MS = 10 * 60_000;

export interface OperationResult {
  status: number;
  body: unknown;
  /** Headers that belong to the outcome (Location, ETag); stored and replayed with it. */
  headers?: Record<string, string>;
  /** What a replay answers, when it must differ from `body`: a secret is sent once and never stored. */
  replayBody?: unknown;
}

export type Operation<RG extends RouteGenericInterface> = (request: FastifyRequest<RG>, tx: Store) => Promise<OperationResult>;

/** An outcome whose only write is one statement, run together with the key's completion (no transaction). */
export interface SingleWriteResult extends OperationResult {
  write: GuardedWrite;
}

/**
 * Decides, without writing, whether this request is a single write; undefined falls back to the
 * transactional operation. It runs before the key is reserved, so it must not write; a 4xx it throws is
 * stored under the key like the operation's.
 */
export type SingleWritePlan<RG extends RouteGenericInterface> = (request: FastifyRequest<RG>) => Promise<SingleWriteResult | undefined>;

export interface IdempotencyOptions {
  /** true: a request without the header is refused with 400 `missing-idempotency-key`. */
  required: boolean;
}

export interface IdempotencyDeps {
  store: Store;
  clock: Clock;
  config: Pick<Config, 'IDEMPOTENCY_TTL' | 'IDEMPOTENCY_LEASE'>;
  /** The key-encryption key: request fingerprints are keyed with a key derived from it (fingerprintKey). */
  keyEncryptionKey: Buffer;
}

/** Thrown inside the transaction when another request took the reservation over: roll back, answer 409. */
class LeaseLost extends Error {}

export function idempotency(deps: IdempotencyDeps) {
  const repository = deps.store.idempotencyKeys;
  const fingerprintSecret = fingerprintKey(deps.keyEncryptionKey);
  const requestHash = (request: FastifyRequest): string =>
    requestFingerprint(fingerprintSecret, request.method, request.url.split('?')[0] ?? '/', request.body);
  const policy = { ttlSeconds: deps.config.IDEMPOTENCY_TTL, leaseSeconds: deps.config.IDEMPOTENCY_LEASE };
  // Requests whose operation failed with a 4xx: the rendered problem is stored once the error edge has produced it.
  const awaitingErrorBody = new WeakMap<FastifyRequest, { id: IdempotencyIdentity; ownerToken: string }>();

  async function runAndComplete<RG extends RouteGenericInterface>(
    request: FastifyRequest<RG>,
    operation: Operation<RG>,
    id: IdempotencyIdentity,
    ownerToken: string,
  ): Promise<StoredResponse> {
    try {
      return await deps.store.transaction(async (tx) => {
        const result = await operation(request, tx);
        const response = toStoredResponse(result);
        const stored = result.replayBody === undefined ? response : toStoredResponse({ ...result, body: result.replayBody });
        if (!(await tx.idempotencyKeys.complete(id, ownerToken, stored))) throw new LeaseLost();
        return response;
      });
    } catch (error) {
      return failed(request, error, id, ownerToken);
    }
  }

  /** The single-write path once the key existed (taken over or expired): the write and the completion are one statement. */
  async function writeAndComplete(request: FastifyRequest, outcome: SingleWriteResult, id: IdempotencyIdentity, ownerToken: string): Promise<StoredResponse> {
    try {
      const response = toStoredResponse(outcome);
      if (!(await repository.completeWith(id, ownerToken, response, outcome.write))) throw new LeaseLost();
      return response;
    } catch (error) {
      return failed(request, error, id, ownerToken);
    }
  }

  /** Runs the single-write plan before any reservation; a 4xx it throws is kept, to be stored under the key. */
  async function plan<RG extends RouteGenericInterface>(
    request: FastifyRequest<RG>,
    singleWrite: SingleWritePlan<RG>,
  ): Promise<{ outcome?: SingleWriteResult; refused?: ProblemError } | undefined> {
    try {
      const outcome = await singleWrite(request);
      return outcome && { outcome };
    } catch (error) {
      if (error instanceof ProblemError && error.status < 500) return { refused: error };
      throw error;
    }
  }

  async function failed(request: FastifyRequest, error: unknown, id: IdempotencyIdentity, ownerToken: string): Promise<never> {
    if (error instanceof LeaseLost) throw inUse(policy.leaseSeconds * 1000);
    if (error instanceof ProblemError && error.status < 500) awaitingErrorBody.set(request, { id, ownerToken });
    else await repository.release(id, ownerToken).catch((e: unknown) => request.log.warn({ err: e }, 'could not release idempotency key'));
    throw error;
  }

  return {
    /** `singleWrite`: optional fast path for requests whose only effect is one insert (see SingleWritePlan). */
    route<RG extends RouteGenericInterface>(options: IdempotencyOptions, operation: Operation<RG>, singleWrite?: SingleWritePlan<RG>) {
      const handler = async (request: FastifyRequest<RG>, reply: FastifyReply): Promise<FastifyReply> => {
        const headerValue = request.headers['idempotency-key'];
        const key = options.required ? requireIdempotencyKey(headerValue) : parseIdempotencyKey(headerValue);
        if (key === undefined) {
          return send(reply, await deps.store.transaction(async (tx) => toStoredResponse(await operation(request, tx))));
        }
        const id = identity(request, key);
        const hash = requestHash(request);
        const planned = singleWrite ? await plan(request, singleWrite) : undefined;
        if (planned?.outcome) {
          // A key seen for the first time (the common case) costs one statement in all.
          const response = toStoredResponse(planned.outcome);
          const now = deps.clock.now();
          const first = await repository.insertCompletedWith(
            id,
            { requestHash: hash, now: new Date(now), expiresAt: new Date(now + policy.ttlSeconds * 1000) },
            response,
            planned.outcome.write,
          );
          if (first === 'written') return send(reply, response);
          if (first === 'busy') throw inUse(1000);
        }
        const reservation = await reserveKey({ repository, clock: deps.clock, policy }, id, hash);
        if (reservation.kind === 'replay') return send(reply.header(REPLAY_HEADER, 'true'), reservation.response);
        if (planned?.refused) return failed(request, planned.refused, id, reservation.ownerToken);
        if (planned?.outcome) return send(reply, await writeAndComplete(request, planned.outcome, id, reservation.ownerToken));
        return send(reply, await runAndComplete(request, operation, id, reservation.ownerToken));
      };
      const onSend: onSendHookHandler = async (request, reply, payload) => {
        const pending = awaitingErrorBody.get(request);
        if (!pending) return payload;
        awaitingErrorBody.delete(request);
        const body = typeof payload === 'string' ? Buffer.from(payload) : Buffer.isBuffer(payload) ? payload : undefined;
        const contentType = reply.getHeader('content-type');
        await (body && reply.statusCode < 500
          ? repository.complete(pending.id, pending.ownerToken, {
              status: reply.statusCode,
              headers: contentType ? { 'content-type': String(contentType) } : {},
              body,
            })
          : repository.release(pending.id, pending.ownerToken)
        ).catch((e: unknown) => request.log.warn({ err: e }, 'could not store the idempotent error response'));
        return payload;
      };
      // The handler sends through reply.send and returns the reply (Fastify's form for an async handler that
      // answers itself); typed as answering nothing, so it fits routes that declare typed response schemas.
      return { handler: handler as unknown as (request: FastifyRequest<RG>, reply: FastifyReply) => Promise<void>, onSend };
    },
    /** Deletes records past their retention TTL; run periodically. */
    purgeExpired: () => repository.purgeExpired(new Date(deps.clock.now())),
  };
}

export type Idempotency = ReturnType<typeof idempotency>;

/** Keys are scoped per client and user (draft §5): two callers never share a key space. */
export const keyIdentity = (principal: Pick<Principal, 'clientId' | 'kind' | 'sub'>, key: string): IdempotencyIdentity => ({
  principalHash: sha256(`${principal.clientId}\n${principal.kind}\n${principal.sub}`),
  keyHash: sha256(key),
});

/**
 * The key of request fingerprints. Keyed, not a bare SHA-256: bodies carry secrets (a user's password at
 * POST /admin/v1/users, an imported client secret), and a fast unkeyed hash of them in idempotency_keys
 * would let whoever reads the table test password guesses offline (docs/idempotency.md).
 */
export const fingerprintKey = (keyEncryptionKey: Buffer): Buffer =>
  Buffer.from(hkdfSync('sha256', keyEncryptionKey, 'gatehouse', 'idempotency-fingerprint-v1', 32));

/** The request's fingerprint: HMAC-SHA-256 of method, path and the canonical JSON of the body. */
export const requestFingerprint = (key: Buffer, method: string, path: string, body: unknown): string =>
  createHmac('sha256', key)
    .update(`${method} ${path}\n${canonicalJson(body ?? null)}`)
    .digest('base64url');

function identity(request: FastifyRequest, key: string): IdempotencyIdentity {
  if (!request.principal) throw new Error('idempotent routes must run after bearer authentication');
  return keyIdentity(request.principal, key);
}

function toStoredResponse(result: OperationResult): StoredResponse {
  return {
    status: result.status,
    headers: { ...result.headers, 'content-type': 'application/json; charset=utf-8' },
    body: Buffer.from(JSON.stringify(result.body)),
  };
}

const send = (reply: FastifyReply, response: StoredResponse): FastifyReply => reply.code(response.status).headers(response.headers).send(response.body);
