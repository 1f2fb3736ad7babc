// The audit chain (migration 0740, docs/audit-log.md): its head and anchor, its links in order for the
// verifier, the signed checkpoints, and the retention purge that keeps the chain verifiable (it deletes
// only a prefix a checkpoint covers, and that checkpoint becomes the anchor).
import type { Db } from '../driver/database.js';
import type { ChainedColumns } from './audit-chain-digest.js';

export interface ChainState {
  headSeq: number;
  headHash: Buffer;
  /** Where the stored log begins: link 0 (genesis) or the checkpoint retention purged up to. */
  anchorSeq: number;
  anchorHash: Buffer;
  /** The compact JWS of the anchoring checkpoint; null while the anchor is the genesis link. */
  anchorCheckpoint: string | null;
  /** When the chain began (migration 0740). */
  startedAt: Date;
  /** How many events were stored before the chain began (the most there can ever be outside it). */
  beforeChainCount: number;
}

export interface ChainLink extends ChainedColumns {
  chain_seq: number;
  chain_hash: Buffer;
}

export interface UnchainedEvent {
  id: string;
  occurred_at: Date;
}

export interface Checkpoint {
  seq: number;
  hash: Buffer;
  issuedAt: Date;
  jws: string;
}

export interface AuditChainRepository {
  state(): Promise<ChainState>;
  /** Links with a position above `afterSeq`, in chain order. */
  links(afterSeq: number, limit: number): Promise<ChainLink[]>;
  /**
   * Stored events that are not in the chain (committed rows are linked at their commit): how many are marked as
   * stored before the chain began, and the oldest other one.
   */
  unchained(): Promise<{ beforeChain: number; first?: UnchainedEvent }>;
  /** Checkpoints newest first. */
  checkpoints(limit: number): Promise<Checkpoint[]>;
  checkpointAt(seq: number): Promise<Checkpoint | undefined>;
  /** Checkpoints with afterSeq < seq ≤ throughSeq, in chain order. */
  checkpointsBetween(afterSeq: number, throughSeq: number): Promise<Checkpoint[]>;
  insertCheckpoint(checkpoint: Checkpoint): Promise<void>;
  /**
   * Retention: deletes the events up to the newest checkpoint issued before `cutoff` (and events stored before
   * the chain began that are older than `cutoff`), and makes that checkpoint the anchor. Returns the count.
   */
  purgeThroughCheckpoint(cutoff: Date): Promise<number>;
}

const toCheckpoint = (r: { seq: number; hash: Uint8Array; issued_at: Date; jws: string }): Checkpoint => ({
  seq: r.seq,
  hash: Buffer.from(r.hash),
  issuedAt: r.issued_at,
  jws: r.jws,
});

export function auditChainRepository(db: Db): AuditChainRepository {
  return {
    async state() {
      const r = await db.selectFrom('audit_chain').selectAll().executeTakeFirstOrThrow();
      return {
        headSeq: r.head_seq,
        headHash: Buffer.from(r.head_hash),
        anchorSeq: r.anchor_seq,
        anchorHash: Buffer.from(r.anchor_hash),
        anchorCheckpoint: r.anchor_checkpoint,
        startedAt: r.started_at,
        beforeChainCount: r.before_chain_count,
      };
    },
    async links(afterSeq, limit) {
      const rows = await db
        .selectFrom('audit_events')
        .select([
          'id',
          'type',
          'occurred_at',
          'actor_kind',
          'actor_client_id',
          'actor_user_id',
          'resource',
          'resource_id',
          'subject',
          'client_id',
          'changed_fields',
          'details',
          'trace_id',
          'chain_seq',
          'chain_hash',
        ])
        .where('chain_seq', '>', afterSeq)
        .orderBy('chain_seq')
        .limit(limit)
        .execute();
      return rows.map((r) => ({ ...r, chain_seq: r.chain_seq!, chain_hash: Buffer.from(r.chain_hash ?? new Uint8Array()) }));
    },
    async unchained() {
      const unlinked = db.selectFrom('audit_events').where('chain_seq', 'is', null);
      const before = await unlinked
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('before_chain', '=', true)
        .executeTakeFirstOrThrow();
      const first = await unlinked
        .select(['id', 'occurred_at'])
        .where('before_chain', '=', false)
        .orderBy('occurred_at')
        .orderBy('id')
        .limit(1)
        .executeTakeFirst();
      return { beforeChain: Number(before.n), ...(first ? { first } : {}) };
    },
    async checkpoints(limit) {
      return (await db.selectFrom('audit_checkpoints').selectAll().orderBy('seq', 'desc').limit(limit).execute()).map(toCheckpoint);
    },
    async checkpointAt(seq) {
      const r = await db.selectFrom('audit_checkpoints').selectAll().where('seq', '=', seq).executeTakeFirst();
      return r && toCheckpoint(r);
    },
    async checkpointsBetween(afterSeq, throughSeq) {
      return (await db.selectFrom('audit_checkpoints').selectAll().where('seq', '>', afterSeq).where('seq', '<=', throughSeq).orderBy('seq').execute()).map(
        toCheckpoint,
      );
    },
    async insertCheckpoint(c) {
      await db.insertInto('audit_checkpoints').values({ seq: c.seq, hash: c.hash, issued_at: c.issuedAt, jws: c.jws }).execute();
    },
    async purgeThroughCheckpoint(cutoff) {
      return db.transaction().execute(async (tx) => {
        const chain = await tx.selectFrom('audit_chain').select(['anchor_seq']).executeTakeFirstOrThrow();
        const legacy = await tx
          .deleteFrom('audit_events')
          .where('chain_seq', 'is', null)
          .where('before_chain', '=', true)
          .where('occurred_at', '<', cutoff)
          .executeTakeFirst();
        const anchor = await tx
          .selectFrom('audit_checkpoints')
          .selectAll()
          .where('issued_at', '<', cutoff)
          .where('seq', '>', chain.anchor_seq)
          .orderBy('seq', 'desc')
          .limit(1)
          .executeTakeFirst();
        if (!anchor) return Number(legacy.numDeletedRows);
        const purged = await tx.deleteFrom('audit_events').where('chain_seq', '<=', anchor.seq).executeTakeFirst();
        await tx.deleteFrom('audit_checkpoints').where('seq', '<', anchor.seq).execute();
        // Last, so the chain-head row (which every committing audit write locks) is held only until this commit.
        await tx.updateTable('audit_chain').set({ anchor_seq: anchor.seq, anchor_hash: anchor.hash, anchor_checkpoint: anchor.jws }).execute();
        return Number(legacy.numDeletedRows) + Number(purged.numDeletedRows);
      });
    },
  };
}
