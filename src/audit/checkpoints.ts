// Signed checkpoints of the audit chain (docs/audit-log.md): the head (position and hash) at a moment, signed
// as a JWT with the deployment's ES256 signing key — the key relying parties already fetch from the JWKS, on
// the schedule of docs/key-rotation.md, sealed under KEY_ENCRYPTION_KEY, so a checkpoint needs no key of its
// own to manage, publish or rotate. Each checkpoint is stored (audit_checkpoints, served at
// /.well-known/audit-checkpoints) and written as an `audit.checkpoint` event into the chain it covers.
// The periodic job writes one per AUDIT_CHECKPOINT_INTERVAL for the whole deployment: under a lock, and only
// when the newest one is older than the interval, so instances that tick together write it once.
import { createLocalJWKSet, jwtVerify, type JWTPayload } from 'jose';
import type { Clock } from '../clock.js';
import type { KeyService } from '../crypto/keys.js';
import type { Store } from '../storage/store.js';
import type { Checkpoint } from '../storage/repositories/audit-chain-repository.js';
import type { AuditSink } from './audit-sink.js';

export const CHECKPOINT_TYP = 'audit-checkpoint+jwt';
export const CHECKPOINTS_PATH = '/.well-known/audit-checkpoints';

export interface CheckpointClaims extends JWTPayload {
  iss: string;
  iat: number;
  /** The chain position covered (every link up to it). */
  seq: number;
  /** hash(seq), base64url. */
  hash: string;
}

export interface CheckpointDeps {
  store: Store;
  clock: Clock;
  keys: Pick<KeyService, 'sign' | 'reload'>;
  audit: AuditSink;
  issuer: string;
}

/**
 * Signs the chain's head and records it, unless a checkpoint newer than `minIntervalMs` exists or nothing but
 * the last checkpoint's own event was appended since. Returns the new checkpoint, if one was written.
 */
export async function writeCheckpoint(deps: CheckpointDeps, { minIntervalMs }: { minIntervalMs: number }): Promise<Checkpoint | undefined> {
  // The head is signed under the checkpoint lock, so the key rows are read before the transaction opens: read
  // in there, on a second connection while the transaction holds one, they would deadlock PGlite's single
  // connection or a pool of one. A forced read (not one only when stale): a copy just short of
  // KEY_REFRESH_INTERVAL could turn stale inside the transaction. One read per checkpoint interval.
  await deps.keys.reload();
  return deps.store.transaction(async (tx) => {
    const chain = tx.auditChain;
    await tx.locks.task('audit-checkpoint');
    const now = deps.clock.now();
    const [latest] = await chain.checkpoints(1);
    if (latest && latest.issuedAt.getTime() + minIntervalMs > now) return undefined;
    const head = await chain.state();
    if (head.headSeq === 0 || (latest && head.headSeq <= latest.seq + 1)) return undefined;
    const claims: CheckpointClaims = { iss: deps.issuer, iat: Math.floor(now / 1000), seq: head.headSeq, hash: head.headHash.toString('base64url') };
    const jws = await deps.keys.sign(claims, { alg: 'ES256', typ: CHECKPOINT_TYP });
    const checkpoint: Checkpoint = { seq: head.headSeq, hash: head.headHash, issuedAt: new Date(now), jws };
    await chain.insertCheckpoint(checkpoint);
    await deps.audit.emit(
      {
        type: 'audit.checkpoint',
        actor: { kind: 'system' },
        resource: 'audit-checkpoint',
        resourceId: String(checkpoint.seq),
        details: { seq: checkpoint.seq, hash: claims.hash, jws },
      },
      { tx },
    );
    return checkpoint;
  });
}

export type CheckpointVerdict = { ok: true; claims: CheckpointClaims; kid: string } | { ok: false; reason: string };

/**
 * Checks a checkpoint's signature against every public key the deployment has had (keys stay in the table after
 * they leave the JWKS, so old checkpoints stay checkable) and its claims' shape.
 */
export async function verifyCheckpoint(store: Store, jws: string, issuer: string): Promise<CheckpointVerdict> {
  const keys = (await store.signingKeys.listAll()).map((row) => row.publicJwk);
  try {
    const { payload, protectedHeader } = await jwtVerify(jws, createLocalJWKSet({ keys }), { issuer, typ: CHECKPOINT_TYP, algorithms: ['ES256'] });
    if (!Number.isSafeInteger(payload.seq) || typeof payload.hash !== 'string' || Buffer.from(payload.hash, 'base64url').length !== 32) {
      return { ok: false, reason: 'the checkpoint does not name a position and a hash' };
    }
    return { ok: true, claims: payload as CheckpointClaims, kid: String(protectedHeader.kid) };
  } catch (error) {
    return { ok: false, reason: `the checkpoint's signature does not verify (${(error as Error).message})` };
  }
}
