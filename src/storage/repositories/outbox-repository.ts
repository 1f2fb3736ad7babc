// The outbox's table (docs/outbox.md). A message is inserted by the transaction that causes it; claiming is
// one statement — the oldest due message, chosen with `FOR UPDATE SKIP LOCKED`, so several workers (and
// instances) never claim the same row, and a message whose worker died (lease passed) is due again. Every
// result a worker writes is fenced by the attempt number it claimed, so a worker that overran its lease
// cannot overwrite the outcome of the worker that claimed the message after it.
import { sql } from 'kysely';
import type { Db } from '../driver/database.js';
import { inBatches } from './batches.js';

export type OutboxState = 'pending' | 'delivering' | 'delivered' | 'dead';
export const OUTBOX_STATES: readonly OutboxState[] = ['pending', 'delivering', 'delivered', 'dead'];

export interface NewOutboxMessage {
  /** Chosen by the caller when the sealed secret is bound to it; generated otherwise. */
  id?: string;
  channel: string;
  /** What the message is about (`invitation`), for operators and metrics; never secret. */
  kind: string;
  /** Where it goes (an e-mail address, later an endpoint id): shown to operators. */
  recipient: string;
  /** What an operator may see; the channel reads it when delivering. */
  payload: Record<string, unknown>;
  /** Sealed secret part (a link carrying a token), opened only by the worker. */
  sealedSecret?: string;
  maxAttempts: number;
  /** Per-subject order: not claimed while an earlier message with the same key is undelivered. */
  orderingKey?: string;
  /** The W3C traceparent of the enqueuing request, when traced (docs/observability.md#traces). */
  traceparent?: string;
  now: Date;
}

/** A claimed message: what the worker needs to deliver it and to fence its result. */
export interface ClaimedOutboxMessage {
  id: string;
  channel: string;
  kind: string;
  recipient: string;
  payload: Record<string, unknown>;
  sealedSecret: string | null;
  attempts: number;
  maxAttempts: number;
  createdAt: Date;
  /** The enqueuing request's traceparent: each delivery attempt's span continues its trace. */
  traceparent: string | null;
}

/** A message as operators see it (the admin list): never the sealed secret. */
export interface OutboxMessageView {
  id: string;
  channel: string;
  kind: string;
  recipient: string;
  state: OutboxState;
  attempts: number;
  maxAttempts: number;
  nextAttemptAt: Date | null;
  lastError: string | null;
  createdAt: Date;
  updatedAt: Date;
  deliveredAt: Date | null;
}

export interface OutboxFilter {
  state?: OutboxState;
  channel?: string;
  recipient?: string;
}

export interface OutboxRepository {
  enqueue(message: NewOutboxMessage): Promise<string>;
  claim(now: Date, lockedUntil: Date): Promise<ClaimedOutboxMessage | undefined>;
  delivered(message: ClaimedOutboxMessage, now: Date): Promise<boolean>;
  retryLater(message: ClaimedOutboxMessage, error: string, nextAttemptAt: Date, now: Date): Promise<boolean>;
  dead(message: ClaimedOutboxMessage, error: string, now: Date): Promise<boolean>;
  /** A dead letter of `channel` made due again with a fresh attempt budget (an operator's redelivery); false when it is not dead. */
  redeliver(id: string, channel: string, now: Date): Promise<boolean>;
  /** One message as operators see it. */
  find(id: string): Promise<OutboxMessageView | undefined>;
  /** Deletes delivered messages finished before `deliveredBefore` and dead ones before `deadBefore`. */
  purge(cutoffs: { deliveredBefore: Date; deadBefore: Date }): Promise<number>;
  /** Newest first; rows strictly before `before` (created_at, id). */
  page(filter: OutboxFilter, request: { before?: { createdAt: Date; id: string }; limit: number }): Promise<OutboxMessageView[]>;
  /** Messages per channel and state, and the creation time of the oldest undelivered one per channel (metrics). */
  summary(): Promise<{ counts: { channel: string; state: OutboxState; count: number }[]; oldestUndelivered: { channel: string; createdAt: Date }[] }>;
}

// An error text is kept for operators; a transport's message is short, but a bound keeps a row bounded.
const MAX_ERROR_LENGTH = 1000;
const clip = (error: string) => (error.length > MAX_ERROR_LENGTH ? `${error.slice(0, MAX_ERROR_LENGTH - 1)}…` : error);

type Row = {
  id: string;
  channel: string;
  kind: string;
  recipient: string;
  payload: unknown;
  sealed_secret: string | null;
  state: string;
  attempts: number;
  max_attempts: number;
  next_attempt_at: Date;
  locked_until: Date | null;
  last_error: string | null;
  created_at: Date;
  updated_at: Date;
  delivered_at: Date | null;
  traceparent: string | null;
};

const toView = (row: Row): OutboxMessageView => ({
  id: row.id,
  channel: row.channel,
  kind: row.kind,
  recipient: row.recipient,
  state: row.state as OutboxState,
  attempts: row.attempts,
  maxAttempts: row.max_attempts,
  // Only an undelivered message has a next attempt.
  nextAttemptAt: row.state === 'pending' ? row.next_attempt_at : row.state === 'delivering' ? row.locked_until : null,
  lastError: row.last_error,
  createdAt: row.created_at,
  updatedAt: row.updated_at,
  deliveredAt: row.delivered_at,
});

export function outboxRepository(db: Db): OutboxRepository {
  const fenced = (message: ClaimedOutboxMessage) =>
    db.updateTable('outbox_messages').where('id', '=', message.id).where('attempts', '=', message.attempts).where('state', '=', 'delivering');
  const updatedOne = (result: { numUpdatedRows: bigint }) => Number(result.numUpdatedRows) === 1;
  return {
    async enqueue(message) {
      const row = await db
        .insertInto('outbox_messages')
        .values({
          ...(message.id ? { id: message.id } : {}),
          channel: message.channel,
          kind: message.kind,
          recipient: message.recipient,
          payload: JSON.stringify(message.payload),
          sealed_secret: message.sealedSecret ?? null,
          max_attempts: message.maxAttempts,
          ordering_key: message.orderingKey ?? null,
          traceparent: message.traceparent ?? null,
          next_attempt_at: message.now,
          created_at: message.now,
          updated_at: message.now,
        })
        .returning('id')
        .executeTakeFirstOrThrow();
      return row.id;
    },
    async claim(now, lockedUntil) {
      const { rows } = await sql<Row>`
        update outbox_messages set state = 'delivering', attempts = attempts + 1, locked_until = ${lockedUntil}, updated_at = ${now}
        where id = (
          select m.id from outbox_messages m
          where ((m.state = 'pending' and m.next_attempt_at <= ${now}) or (m.state = 'delivering' and m.locked_until <= ${now}))
            -- Per-subject order: wait while an earlier message with the same key is undelivered (it may be
            -- waiting for its retry, or in another worker's hands).
            and (m.ordering_key is null or not exists (
              select 1 from outbox_messages e
              where e.ordering_key = m.ordering_key and e.seq < m.seq and e.state in ('pending', 'delivering')))
          order by m.next_attempt_at
          limit 1
          for update of m skip locked
        )
        returning *`.execute(db);
      const row = rows[0];
      if (!row) return undefined;
      return {
        id: row.id,
        channel: row.channel,
        kind: row.kind,
        recipient: row.recipient,
        payload: row.payload as Record<string, unknown>,
        sealedSecret: row.sealed_secret,
        attempts: row.attempts,
        maxAttempts: row.max_attempts,
        createdAt: row.created_at,
        traceparent: row.traceparent,
      };
    },
    async delivered(message, now) {
      // The secret has served its purpose: a delivered message keeps only what operators may see.
      return updatedOne(
        await fenced(message)
          .set({ state: 'delivered', locked_until: null, sealed_secret: null, last_error: null, delivered_at: now, updated_at: now })
          .executeTakeFirst(),
      );
    },
    async retryLater(message, error, nextAttemptAt, now) {
      return updatedOne(
        await fenced(message)
          .set({ state: 'pending', locked_until: null, next_attempt_at: nextAttemptAt, last_error: clip(error), updated_at: now })
          .executeTakeFirst(),
      );
    },
    async dead(message, error, now) {
      return updatedOne(
        await fenced(message)
          .set({ state: 'dead', locked_until: null, sealed_secret: null, last_error: clip(error), updated_at: now })
          .executeTakeFirst(),
      );
    },
    async redeliver(id, channel, now) {
      return updatedOne(
        await db
          .updateTable('outbox_messages')
          .set({ state: 'pending', attempts: 0, next_attempt_at: now, locked_until: null, updated_at: now })
          .where('id', '=', id)
          .where('channel', '=', channel)
          .where('state', '=', 'dead')
          .executeTakeFirst(),
      );
    },
    async find(id) {
      const row = await db.selectFrom('outbox_messages').selectAll().where('id', '=', id).executeTakeFirst();
      return row ? toView(row as Row) : undefined;
    },
    purge({ deliveredBefore, deadBefore }) {
      return inBatches(async (limit) => {
        const { rows } = await sql<{ id: string }>`
          delete from outbox_messages where id in (
            select id from outbox_messages
            where (state = 'delivered' and updated_at < ${deliveredBefore}) or (state = 'dead' and updated_at < ${deadBefore})
            limit ${limit}
          )
          returning id`.execute(db);
        return rows.length;
      });
    },
    async page(filter, { before, limit }) {
      let query = db.selectFrom('outbox_messages').selectAll();
      if (filter.state) query = query.where('state', '=', filter.state);
      if (filter.channel) query = query.where('channel', '=', filter.channel);
      if (filter.recipient) query = query.where('recipient', '=', filter.recipient);
      if (before) {
        query = query.where((eb) =>
          eb.or([eb('created_at', '<', before.createdAt), eb.and([eb('created_at', '=', before.createdAt), eb('id', '<', before.id)])]),
        );
      }
      const rows = await query.orderBy('created_at', 'desc').orderBy('id', 'desc').limit(limit).execute();
      return rows.map((row) => toView(row as Row));
    },
    async summary() {
      const counts = await db
        .selectFrom('outbox_messages')
        .select(['channel', 'state', (eb) => eb.fn.countAll<string>().as('count')])
        .groupBy(['channel', 'state'])
        .execute();
      const oldest = await db
        .selectFrom('outbox_messages')
        .select(['channel', (eb) => eb.fn.min<Date>('created_at').as('created_at')])
        .where('state', 'in', ['pending', 'delivering'])
        .groupBy('channel')
        .execute();
      return {
        counts: counts.map((c) => ({ channel: c.channel, state: c.state as OutboxState, count: Number(c.count) })),
        oldestUndelivered: oldest.map((o) => ({ channel: o.channel, createdAt: new Date(o.created_at) })),
      };
    },
  };
}
