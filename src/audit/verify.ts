// `gatehouse audit verify [--from CHECKPOINT]` (docs/audit-log.md): re-derives every link of the chain from
// the rows as stored — digest of the canonical form, then the link hash — from the anchor (genesis, or the
// checkpoint retention purged up to) or from a given checkpoint, to the head, and checks every signed
// checkpoint on the way. Either the log is complete and unmodified over that range, or the answer names the
// first broken link. Read in one REPEATABLE READ snapshot, so writers and the purge running meanwhile do not
// show up as breaks.
import type { Store } from '../storage/store.js';
import type { AuditChainRepository, ChainState } from '../storage/repositories/audit-chain-repository.js';
import { eventDigest, GENESIS_HASH, linkHash } from '../storage/repositories/audit-chain-digest.js';
import { verifyCheckpoint } from './checkpoints.js';

export interface BrokenLink {
  /** The chain position of the first link that does not hold (absent for an event outside the chain). */
  seq?: number;
  /** The stored event at that position, when there is one. */
  id?: string;
  reason: 'modified' | 'missing' | 'beyond-head' | 'head-mismatch' | 'checkpoint-mismatch' | 'anchor' | 'not-in-chain';
  message: string;
}

export interface Verdict {
  ok: boolean;
  /** Where verification started: the genesis link, the retention anchor, or the checkpoint given. */
  from: { seq: number; hash: string; source: 'genesis' | 'retention-anchor' | 'checkpoint' };
  head: { seq: number; hash: string };
  /** Links re-derived and found intact. */
  verified: number;
  /** Signed checkpoints found on the way whose signature and hash hold. */
  checkpoints: number;
  /** Events stored before the chain began (migration 0740): outside what this proves. */
  before_chain: number;
  broken?: BrokenLink;
}

const BATCH = 1000;
const b64 = (b: Uint8Array) => Buffer.from(b).toString('base64url');

type Start = { seq: number; hash: Buffer; source: Verdict['from']['source'] } | { broken: BrokenLink };

async function startOf(store: Store, chain: AuditChainRepository, state: ChainState, issuer: string, from: string | undefined): Promise<Start> {
  if (from === undefined) {
    if (state.anchorCheckpoint === null) {
      if (state.anchorSeq === 0 && GENESIS_HASH.equals(state.anchorHash)) return { seq: 0, hash: GENESIS_HASH, source: 'genesis' };
      return {
        broken: { seq: state.anchorSeq, reason: 'anchor', message: 'the chain does not begin at the genesis link and names no checkpoint it was purged up to' },
      };
    }
    const anchor = await verifyCheckpoint(store, state.anchorCheckpoint, issuer);
    if (!anchor.ok) return { broken: { seq: state.anchorSeq, reason: 'anchor', message: `the retention anchor's checkpoint: ${anchor.reason}` } };
    if (anchor.claims.seq !== state.anchorSeq || !Buffer.from(anchor.claims.hash, 'base64url').equals(state.anchorHash)) {
      return { broken: { seq: state.anchorSeq, reason: 'anchor', message: 'the retention anchor differs from the checkpoint it rests on' } };
    }
    return { seq: state.anchorSeq, hash: state.anchorHash, source: 'retention-anchor' };
  }
  const jws = /^\d+$/.test(from) ? (await chain.checkpointAt(Number(from)))?.jws : from;
  if (!jws) return { broken: { seq: Number(from), reason: 'checkpoint-mismatch', message: `no checkpoint is stored at position ${from}` } };
  const checkpoint = await verifyCheckpoint(store, jws, issuer);
  if (!checkpoint.ok) return { broken: { reason: 'checkpoint-mismatch', message: `the checkpoint given: ${checkpoint.reason}` } };
  const { seq } = checkpoint.claims;
  const hash = Buffer.from(checkpoint.claims.hash, 'base64url');
  if (seq < state.anchorSeq) {
    return {
      broken: { seq, reason: 'missing', message: `the log now begins after position ${state.anchorSeq} (retention); the checkpoint at ${seq} is older` },
    };
  }
  if (seq === state.anchorSeq && !hash.equals(state.anchorHash)) {
    return { broken: { seq, reason: 'checkpoint-mismatch', message: `the stored anchor at position ${seq} does not match the checkpoint given` } };
  }
  if (seq > state.anchorSeq) {
    const [row] = await chain.links(seq - 1, 1);
    if (!row || row.chain_seq !== seq) return { broken: { seq, reason: 'missing', message: `link ${seq}, the checkpoint's own, is missing` } };
    if (!row.chain_hash.equals(hash))
      return {
        broken: { seq, id: row.id, reason: 'checkpoint-mismatch', message: `link ${seq} (event ${row.id}) does not carry the hash the checkpoint signed` },
      };
  }
  return { seq, hash, source: 'checkpoint' };
}

export async function verifyAuditChain(store: Store, options: { issuer: string; from?: string }): Promise<Verdict> {
  return store.transaction(
    async (tx) => {
      const chain = tx.auditChain;
      const state = await chain.state();
      const start = await startOf(tx, chain, state, options.issuer, options.from);
      const verdict: Verdict = {
        ok: false,
        from:
          'broken' in start
            ? { seq: state.anchorSeq, hash: b64(state.anchorHash), source: 'genesis' }
            : { seq: start.seq, hash: b64(start.hash), source: start.source },
        head: { seq: state.headSeq, hash: b64(state.headHash) },
        verified: 0,
        checkpoints: 0,
        before_chain: 0,
      };
      const fail = (broken: BrokenLink) => ({ ...verdict, broken });
      if ('broken' in start) return fail(start.broken);

      const signed = new Map((await chain.checkpointsBetween(start.seq, state.headSeq)).map((c) => [c.seq, c]));
      let seq = start.seq;
      let previous: Buffer = start.hash;
      for (;;) {
        const links = await chain.links(seq, BATCH);
        for (const link of links) {
          const expected = seq + 1;
          if (link.chain_seq > state.headSeq) {
            return fail({
              seq: link.chain_seq,
              id: link.id,
              reason: 'beyond-head',
              message: `event ${link.id} claims position ${link.chain_seq}, past the head (${state.headSeq})`,
            });
          }
          if (link.chain_seq !== expected) {
            return fail({
              seq: expected,
              reason: 'missing',
              message: `link ${expected} is missing: the chain jumps from ${seq} to ${link.chain_seq} (event ${link.id})`,
            });
          }
          const hash = linkHash(previous, link.chain_seq, eventDigest(link));
          if (!hash.equals(link.chain_hash)) {
            return fail({
              seq: expected,
              id: link.id,
              reason: 'modified',
              message: `link ${expected} (event ${link.id}) was modified, moved or inserted: its content and position do not give its hash`,
            });
          }
          const checkpoint = signed.get(expected);
          if (checkpoint) {
            const check = await verifyCheckpoint(tx, checkpoint.jws, options.issuer);
            if (!check.ok || check.claims.seq !== expected || !Buffer.from(check.claims.hash, 'base64url').equals(hash) || !checkpoint.hash.equals(hash)) {
              return fail({
                seq: expected,
                id: link.id,
                reason: 'checkpoint-mismatch',
                message: `the checkpoint at link ${expected} does not match the chain${check.ok ? '' : ` (${check.reason})`}`,
              });
            }
            verdict.checkpoints += 1;
          }
          seq = expected;
          previous = hash;
          verdict.verified += 1;
        }
        if (links.length < BATCH) break;
      }
      if (seq !== state.headSeq) {
        return fail({
          seq: seq + 1,
          reason: 'missing',
          message: `the chain ends at ${seq} but its head is ${state.headSeq}: links ${seq + 1}…${state.headSeq} are missing`,
        });
      }
      if (!previous.equals(state.headHash)) {
        return fail({ seq, reason: 'head-mismatch', message: `the last link (${seq}) does not carry the head's hash` });
      }
      const unchained = await chain.unchained();
      verdict.before_chain = unchained.beforeChain;
      if (unchained.beforeChain > state.beforeChainCount) {
        return fail({
          reason: 'not-in-chain',
          message: `${unchained.beforeChain} events are marked as stored before the chain began, but only ${state.beforeChainCount} were`,
        });
      }
      if (unchained.first) {
        const { id } = unchained.first;
        return fail({ id, reason: 'not-in-chain', message: `event ${id} is stored but not in the chain (written around Gatehouse's writer)` });
      }
      return { ...verdict, ok: true };
    },
    // One snapshot: links written while the walk runs are not half-seen.
    { isolation: 'repeatable read' },
  );
}
