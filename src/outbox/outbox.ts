// The outbox's worker (docs/outbox.md): the one way anything leaves the process. Messages are written in the
// transaction of the change that causes them (writer.ts), which wakes this worker after the commit. It claims due messages (one at a time per
// instance, `FOR UPDATE SKIP LOCKED` + a lease across instances), hands each to its channel, and records the
// outcome fenced by the attempt it claimed: delivered, retried after an exponential back-off, or dead after
// `maxAttempts`. A crash between commit and send loses nothing: the row is there, and a message whose worker
// died mid-delivery is claimed again once its lease passes. Old delivered and dead messages are purged.
import type { Clock } from '../clock.js';
import type { KeyEncryption } from '../crypto/key-encryption.js';
import { claimedAttempts } from '../jobs/claimed-attempts.js';
import type { Store } from '../storage/store.js';
import type { ClaimedOutboxMessage, OutboxRepository } from '../storage/repositories/outbox-repository.js';
import { retryDelayMs } from './backoff.js';
import { PermanentDeliveryError, type OutboxChannel } from './channel.js';
import type { OutboxMetrics } from './metrics.js';
import { sealAad } from './writer.js';
import { inStoredTraceSpan, markActiveSpanFailed } from '../telemetry/trace-context.js';

/** Longer than any channel may take for one message (the mail transport's timeouts add up to less). */
export const LEASE_MS = 2 * 60_000;
const IDLE_POLL_MS = 1_000;
export const OUTBOX_PURGE_INTERVAL_MS = 3600_000;

export interface OutboxWorker {
  /** Looks for due messages now (after a commit that enqueued one). */
  wake(): void;
  /** Claims and delivers one due message; false when none was due. */
  runOnce(): Promise<boolean>;
  /** Delivers until nothing is due and nothing is in flight (tests). */
  drain(): Promise<void>;
  purge(): Promise<number>;
  start(): void;
  stop(): Promise<void>;
}

interface Log {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
}

export interface OutboxDeps {
  store: Store;
  clock: Clock;
  log: Log;
  encryption: KeyEncryption;
  channels: readonly OutboxChannel[];
  metrics: OutboxMetrics;
  retention: { deliveredSeconds: number; deadSeconds: number };
  /** Tests shorten it to see a dead worker's message claimed again; default LEASE_MS. */
  leaseMs?: number;
}

export function outboxWorker(deps: OutboxDeps): OutboxWorker {
  const { store, clock, log, encryption, metrics } = deps;
  const repository: OutboxRepository = store.outbox;
  const channels = new Map(deps.channels.map((c) => [c.name, c]));
  const leaseMs = deps.leaseMs ?? LEASE_MS;
  let running = false;
  let loop: Promise<void> | undefined;
  let wakeUp: (() => void) | undefined;
  let wokenWhileBusy = false;

  const now = () => new Date(clock.now());

  // A wake-up while a delivery is under way is remembered, so the loop looks again instead of idling.
  function wake(): void {
    if (wakeUp) wakeUp();
    else wokenWhileBusy = true;
  }

  function open(message: ClaimedOutboxMessage): Record<string, unknown> | undefined {
    if (message.sealedSecret === null) return undefined;
    try {
      return JSON.parse(encryption.open(message.sealedSecret, sealAad(message.id))) as Record<string, unknown>;
    } catch {
      // A key-encryption key changed without re-sealing: no retry will open it.
      throw new PermanentDeliveryError('the sealed part of the message cannot be opened with this key-encryption key');
    }
  }

  // One span per attempt, continuing the trace of the request that enqueued the message (docs/observability.md#traces):
  // the channel's POST carries it as `traceparent`, and the attempt's log lines name it.
  function deliver(message: ClaimedOutboxMessage): Promise<void> {
    const attributes = {
      'gatehouse.outbox.message_id': message.id,
      'gatehouse.outbox.channel': message.channel,
      'gatehouse.outbox.kind': message.kind,
      'gatehouse.outbox.attempt': message.attempts,
    };
    return inStoredTraceSpan(`outbox deliver ${message.channel}`, message.traceparent, attributes, () => attempt(message));
  }

  async function attempt(message: ClaimedOutboxMessage): Promise<void> {
    const context = { outbox_message_id: message.id, channel: message.channel, kind: message.kind, attempt: message.attempts };
    try {
      const channel = channels.get(message.channel);
      // Another instance (or a later version) may know the channel: leave the message for it, retried.
      if (!channel) throw new Error(`channel ${message.channel} is not configured on this instance`);
      const secret = open(message);
      await channel.deliver({
        id: message.id,
        kind: message.kind,
        recipient: message.recipient,
        payload: message.payload,
        ...(secret ? { secret } : {}),
        attempt: message.attempts,
      });
      if (await repository.delivered(message, now())) {
        metrics.delivery(message.channel, 'delivered');
        log.info(context, 'outbox message delivered');
      }
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      const permanent = error instanceof PermanentDeliveryError;
      markActiveSpanFailed(reason, { 'gatehouse.outbox.permanent': permanent });
      if (permanent || message.attempts >= message.maxAttempts) {
        if (await repository.dead(message, reason, now())) {
          metrics.delivery(message.channel, 'dead');
          log.error({ ...context, err: error, permanent }, 'outbox message undeliverable: kept as a dead letter (GET /admin/v1/outbox?state=dead)');
        }
        return;
      }
      const retryAt = new Date(clock.now() + retryDelayMs(message.attempts));
      if (await repository.retryLater(message, reason, retryAt, now())) {
        metrics.delivery(message.channel, 'retry');
        log.warn({ ...context, err: error, next_attempt_at: retryAt.toISOString() }, 'outbox delivery failed; will retry');
      }
    }
  }

  // The whole attempt, claim included, counts as in flight (as in the job queue): drain() waits for it.
  const attempts = claimedAttempts({ clock, leaseMs, claim: (at, leaseUntil) => repository.claim(at, leaseUntil), process: deliver });
  const { runOnce } = attempts;

  const idle = () =>
    new Promise<void>((resolve) => {
      if (wokenWhileBusy) {
        wokenWhileBusy = false;
        resolve();
        return;
      }
      const timer = setTimeout(resolve, IDLE_POLL_MS);
      wakeUp = () => {
        clearTimeout(timer);
        wakeUp = undefined;
        resolve();
      };
    });

  async function work(): Promise<void> {
    while (running) {
      const worked = await runOnce().catch((error: unknown) => {
        log.error({ err: error }, 'outbox unavailable');
        return false;
      });
      if (!worked && running) await idle();
    }
  }

  return {
    wake,
    runOnce,
    drain: attempts.drain,
    purge() {
      const at = clock.now();
      return repository.purge({
        deliveredBefore: new Date(at - deps.retention.deliveredSeconds * 1000),
        deadBefore: new Date(at - deps.retention.deadSeconds * 1000),
      });
    },
    start() {
      if (running) return;
      running = true;
      loop = work();
    },
    async stop() {
      running = false;
      wakeUp?.();
      await loop;
      await attempts.settle();
    },
  };
}
