// Audit events: append-only rows (a trigger refuses UPDATE but the link into the chain), read newest first with
// filters, purged by age. Each row is written with the digest of its canonical form; the database links it into
// the deployment's chain when its transaction commits (migration 0740, docs/audit-log.md).
import type { Selectable } from 'kysely';
import type { Db } from '../driver/database.js';
import type { AuditEventsTable } from '../driver/schema.js';
import { eventDigest, type ChainedColumns } from './audit-chain-digest.js';

// The row as stored. The vocabulary of event types (src/audit/audit-events.ts) is the audit sink's; storage
// keeps a type as the text it is, so the layer below the sink does not import it.

/** Who did it: an admin API client (and the user it acts for, when present), the CLI's OS user, a user, or Gatehouse itself. */
export type AuditActor =
  | { kind: 'admin-client'; clientId: string; userId?: string }
  | { kind: 'cli'; user: string }
  | { kind: 'user'; userId: string; clientId?: string }
  | { kind: 'system' };

export interface StoredAuditEvent {
  id: string;
  occurredAt: Date;
  type: string;
  actor: AuditActor;
  resource?: string;
  resourceId?: string;
  subject?: string;
  clientId?: string;
  changedFields?: readonly string[];
  details?: Record<string, string | number | boolean | null>;
  traceId?: string;
}

export interface AuditEventFilter {
  type?: string;
  /** Matches the subject or the changed resource's id. */
  subject?: string;
  /** Matches the event's client or the acting admin client. */
  clientId?: string;
  /** The acting user: a user id (themself, or an operator through an admin client) or the CLI's OS user (index of migration 0490). */
  actor?: string;
  since?: Date;
  until?: Date;
}

export interface AuditEventsRepository {
  append(event: StoredAuditEvent): Promise<void>;
  /** Newest first; rows strictly before `before` (occurred_at, id). */
  page(filter: AuditEventFilter, request: { before?: { createdAt: Date; id: string }; limit: number }): Promise<StoredAuditEvent[]>;
}

const actorOf = (r: Selectable<AuditEventsTable>): AuditActor => {
  switch (r.actor_kind) {
    case 'admin-client':
      return { kind: 'admin-client', clientId: r.actor_client_id ?? '', ...(r.actor_user_id ? { userId: r.actor_user_id } : {}) };
    case 'cli':
      return { kind: 'cli', user: r.actor_user_id ?? '' };
    case 'user':
      return { kind: 'user', userId: r.actor_user_id ?? '', ...(r.actor_client_id ? { clientId: r.actor_client_id } : {}) };
    default:
      return { kind: 'system' };
  }
};

const toEvent = (r: Selectable<AuditEventsTable>): StoredAuditEvent => ({
  id: r.id,
  type: r.type,
  occurredAt: r.occurred_at,
  actor: actorOf(r),
  ...(r.resource !== null ? { resource: r.resource } : {}),
  ...(r.resource_id !== null ? { resourceId: r.resource_id } : {}),
  ...(r.subject !== null ? { subject: r.subject } : {}),
  ...(r.client_id !== null ? { clientId: r.client_id } : {}),
  changedFields: r.changed_fields,
  details: r.details as StoredAuditEvent['details'],
  ...(r.trace_id !== null ? { traceId: r.trace_id } : {}),
});

const actorColumns = (actor: AuditActor) => ({
  actor_kind: actor.kind,
  actor_client_id: actor.kind === 'admin-client' || actor.kind === 'user' ? (actor.clientId ?? null) : null,
  actor_user_id: actor.kind === 'admin-client' ? (actor.userId ?? null) : actor.kind === 'user' ? actor.userId : actor.kind === 'cli' ? actor.user : null,
});

export function auditEventsRepository(db: Db): AuditEventsRepository {
  return {
    async append(event) {
      const row: ChainedColumns = {
        id: event.id,
        type: event.type,
        occurred_at: event.occurredAt,
        ...actorColumns(event.actor),
        resource: event.resource ?? null,
        resource_id: event.resourceId ?? null,
        subject: event.subject ?? null,
        client_id: event.clientId ?? null,
        changed_fields: [...(event.changedFields ?? [])],
        details: event.details ?? {},
        trace_id: event.traceId ?? null,
      };
      await db
        .insertInto('audit_events')
        .values({ ...row, changed_fields: [...row.changed_fields], details: JSON.stringify(row.details), chain_digest: eventDigest(row) })
        .execute();
    },
    async page(filter, { before, limit }) {
      let query = db.selectFrom('audit_events').selectAll();
      if (filter.type) query = query.where('type', '=', filter.type);
      if (filter.subject) query = query.where((eb) => eb.or([eb('subject', '=', filter.subject!), eb('resource_id', '=', filter.subject!)]));
      if (filter.clientId) query = query.where((eb) => eb.or([eb('client_id', '=', filter.clientId!), eb('actor_client_id', '=', filter.clientId!)]));
      if (filter.actor) query = query.where('actor_user_id', '=', filter.actor);
      if (filter.since) query = query.where('occurred_at', '>=', filter.since);
      if (filter.until) query = query.where('occurred_at', '<', filter.until);
      if (before) {
        query = query.where((eb) =>
          eb.or([eb('occurred_at', '<', before.createdAt), eb.and([eb('occurred_at', '=', before.createdAt), eb('id', '<', before.id)])]),
        );
      }
      return (await query.orderBy('occurred_at', 'desc').orderBy('id', 'desc').limit(limit).execute()).map(toEvent);
    },
  };
}
