// What the audit chain hashes (docs/audit-log.md). One canonical serialization of a stored event, written
// here once and used both when the event is written (its digest goes into the row) and when `audit verify`
// re-derives it from the row as read back, so the two can never drift apart:
//
//   digest(e) = SHA-256( UTF-8( JSON array of the columns in a fixed order, object keys sorted ) )
//   hash(n)   = SHA-256( hash(n-1) || n as 8 bytes big-endian || digest(n) )       (computed in SQL at commit)
//
// The digest is computed here (node:crypto) rather than in SQL because the serialization must be reproduced
// by the verifier byte for byte: JSON.stringify with sorted keys is RFC 8785's canonical form for these
// values, whereas reproducing PostgreSQL's jsonb text output in the verifier would be a second, fragile
// implementation. The link is computed in SQL (built-in sha256(), PostgreSQL 11+, no extension) because
// only the database knows, under the chain-head lock at commit, which link comes before.
import { createHash } from 'node:crypto';

/** The stored columns an event's digest covers (every column but the chain's own). */
export interface ChainedColumns {
  id: string;
  type: string;
  occurred_at: Date;
  actor_kind: string;
  actor_client_id: string | null;
  actor_user_id: string | null;
  resource: string | null;
  resource_id: string | null;
  subject: string | null;
  client_id: string | null;
  changed_fields: readonly string[];
  details: unknown;
  trace_id: string | null;
}

const VERSION = 'gatehouse.audit.v1';

/** Link 0: the same constant the migration writes into audit_chain (0740_audit_chain.sql). */
export const GENESIS_HASH: Buffer = createHash('sha256').update('gatehouse audit chain v1', 'utf8').digest();

/** JSON with object keys sorted at every level (RFC 8785 for strings, numbers, booleans, null, arrays, objects). */
function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    // A member whose value is undefined is left out, as JSON.stringify leaves it out of the stored jsonb.
    const entries = Object.keys(value)
      .filter((key) => (value as Record<string, unknown>)[key] !== undefined)
      .sort()
      .map((key) => `${JSON.stringify(key)}:${canonicalJson((value as Record<string, unknown>)[key])}`);
    return `{${entries.join(',')}}`;
  }
  return JSON.stringify(value ?? null);
}

function canonicalEvent(row: ChainedColumns): string {
  return canonicalJson([
    VERSION,
    row.id,
    row.type,
    row.occurred_at.toISOString(),
    row.actor_kind,
    row.actor_client_id,
    row.actor_user_id,
    row.resource,
    row.resource_id,
    row.subject,
    row.client_id,
    [...row.changed_fields],
    row.details ?? {},
    row.trace_id,
  ]);
}

export const eventDigest = (row: ChainedColumns): Buffer => createHash('sha256').update(canonicalEvent(row), 'utf8').digest();

/** The link the database computes at commit, recomputed by the verifier. */
export function linkHash(previous: Uint8Array, seq: number, digest: Uint8Array): Buffer {
  const position = Buffer.alloc(8);
  position.writeBigInt64BE(BigInt(seq));
  return createHash('sha256').update(previous).update(position).update(digest).digest();
}
