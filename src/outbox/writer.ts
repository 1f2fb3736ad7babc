// Writing to the outbox (docs/outbox.md): `enqueue` inserts the message in the caller's transaction, so it
// exists exactly when the change that caused it committed. The writer is part of the core (the CLI writes
// too: `gatehouse users invite`); a server's worker subscribes to be woken after each commit, and any other
// instance — or the server a CLI wrote for — finds the message at its next poll.
import { randomUUID } from 'node:crypto';
import type { Clock } from '../clock.js';
import type { KeyEncryption } from '../crypto/key-encryption.js';
import type { Store } from '../storage/store.js';
import { currentTraceparent } from '../telemetry/trace-context.js';
import { DEFAULT_MAX_ATTEMPTS } from './backoff.js';

const withTraceparent = (traceparent: string | undefined) => (traceparent !== undefined ? { traceparent } : {});

export interface OutboxMessageInput {
  channel: string;
  kind: string;
  recipient: string;
  /** What an operator may see (GET /admin/v1/outbox does not show it, but the database does). */
  payload: Record<string, unknown>;
  /** Sealed under the key-encryption key until delivery; removed from the row once delivered or dead. */
  secret?: Record<string, unknown>;
  maxAttempts?: number;
  /**
   * Messages with the same key are delivered one after the other in the order they were written (a webhook
   * endpoint and the user it is about): none is claimed while an earlier one is still undelivered.
   */
  orderingKey?: string;
}

export interface OutboxWriter {
  /** Writes the message in `tx` (a transaction opened with store.transaction); listeners run after the commit. */
  enqueue(tx: Store, message: OutboxMessageInput): Promise<string>;
  /** Called after each commit that enqueued something (the worker's wake-up). */
  onCommitted(listener: () => void): void;
}

// The message id is the additional data of the seal: a sealed secret cannot be moved onto another message.
export const sealAad = (id: string) => `outbox:${id}`;

export function outboxWriter({ encryption, clock }: { encryption: KeyEncryption; clock: Clock }): OutboxWriter {
  const listeners: (() => void)[] = [];
  return {
    async enqueue(tx, message) {
      const id = randomUUID();
      await tx.outbox.enqueue({
        id,
        ...(message.secret ? { sealedSecret: encryption.seal(JSON.stringify(message.secret), sealAad(id)) } : {}),
        channel: message.channel,
        kind: message.kind,
        recipient: message.recipient,
        payload: message.payload,
        maxAttempts: message.maxAttempts ?? DEFAULT_MAX_ATTEMPTS,
        ...(message.orderingKey !== undefined ? { orderingKey: message.orderingKey } : {}),
        // The span active now (the request's) is the parent of each delivery attempt's span.
        ...withTraceparent(currentTraceparent()),
        now: new Date(clock.now()),
      });
      tx.afterCommit(() => {
        for (const listener of listeners) listener();
      });
      return id;
    },
    onCommitted: (listener) => void listeners.push(listener),
  };
}
