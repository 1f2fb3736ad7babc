// The event sink: code that has something to audit emits one typed event (one line at the place it
// happens); subscribers decide where it goes. The two standard subscribers write it to the database (in the
// caller's transaction when one is given, so an admin change and its event commit together) and to the log
// as one JSON line — written only once that transaction has committed, so a rolled-back change leaves
// neither a row nor a line (docs/audit-log.md).
import { randomUUID } from 'node:crypto';
import type { Clock } from '../clock.js';
import type { Store } from '../storage/store.js';
import type { AuditEvent, AuditEventInput } from './audit-events.js';

export type AuditSubscriber = (event: AuditEvent, context: { tx?: Store }) => Promise<void> | void;

export interface AuditSink {
  /** Records the event; with `tx` the database write joins that transaction. */
  emit(event: AuditEventInput, context?: { tx?: Store }): Promise<void>;
  /** Adds a subscriber (the server adds its logger once it has one). */
  subscribe(subscriber: AuditSubscriber): void;
}

export function auditSink(deps: { clock: Clock; subscribers: readonly AuditSubscriber[] }): AuditSink {
  const subscribers = [...deps.subscribers];
  return {
    async emit(input, context = {}) {
      const event: AuditEvent = { ...input, id: randomUUID(), occurredAt: new Date(deps.clock.now()) };
      for (const subscriber of subscribers) await subscriber(event, context);
    },
    subscribe(subscriber) {
      subscribers.push(subscriber);
    },
  };
}

/** Appends to audit_events, through the caller's transaction when there is one. */
export const databaseSubscriber =
  (store: Store): AuditSubscriber =>
  (event, { tx }) =>
    (tx ?? store).auditEvents.append(event);

/** One JSON line per event under the `audit` key (the logger adds time and level), after the caller's transaction commits. */
export const logSubscriber =
  (log: { info(object: object, message: string): void }): AuditSubscriber =>
  (event, { tx }) => {
    const line = { audit: { ...event, occurredAt: event.occurredAt.toISOString() } };
    const write = () => log.info(line, 'audit event');
    if (tx) tx.afterCommit(write);
    else write();
  };
