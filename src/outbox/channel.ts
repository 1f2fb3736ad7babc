// One delivery channel of the outbox (docs/outbox.md): `email` today; `webhook` and `backchannel_logout`
// later. A channel only delivers one message; claiming, retries, back-off, dead letters, metrics and the
// exactly-once claim are the outbox's, the same for every channel.

/** What a channel is handed: the operator-visible payload and, opened, the secret sealed with it. */
export interface OutboundMessage {
  /** Stable across attempts: a receiver can use it to drop the duplicate a crash after sending may cause. */
  id: string;
  kind: string;
  recipient: string;
  payload: Record<string, unknown>;
  /** The opened secret part (e.g. a link carrying a token), or undefined when the message has none. */
  secret?: Record<string, unknown>;
  /** 1 on the first attempt. */
  attempt: number;
}

export interface OutboxChannel {
  readonly name: string;
  /** Resolves once the receiver has accepted the message; throws otherwise (retried unless permanent). */
  deliver(message: OutboundMessage): Promise<void>;
}

/**
 * A failure no retry can cure (the receiver refused the message for good, e.g. SMTP 5xx for an unknown
 * mailbox, or the message cannot be built): the message becomes a dead letter at once.
 */
export class PermanentDeliveryError extends Error {
  override readonly name = 'PermanentDeliveryError';
}
