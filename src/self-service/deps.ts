// What the self-service flows need (docs/email.md): the database and clock, the settings they read, the
// audit log, the outbox every mail goes through, the job queue that does the account-dependent work after
// the response (so the response is the same whether an address has an account), and the rate limits.
import type { AuditSink } from '../audit/audit-sink.js';
import type { Clock } from '../clock.js';
import type { Config } from '../config.js';
import type { Brand } from '../http/brand.js';
import type { RateLimits } from '../http/rate-limit.js';
import type { JobQueue } from '../jobs/worker.js';
import type { OutboxWriter } from '../outbox/writer.js';
import type { Store } from '../storage/store.js';

export interface SelfServiceDeps {
  store: Store;
  clock: Clock;
  config: Pick<Config, 'ISSUER' | 'NODE_ENV' | 'SMTP_URL' | 'PASSWORD_RESET_TTL' | 'EMAIL_VERIFICATION_TTL' | 'SIGNUP' | 'SIGNUP_DOMAINS'>;
  brand: Brand;
  audit: AuditSink;
  outbox: OutboxWriter;
  jobs: Pick<JobQueue, 'enqueue' | 'wake' | 'handle'>;
  rateLimits: Pick<RateLimits, 'hit'>;
}

/** An interaction id (src/storage/repositories/interactions-repository.ts: base64url); anything else is dropped. */
export const interactionIdOf = (value: unknown): string | undefined => (typeof value === 'string' && /^[A-Za-z0-9_-]{16,128}$/.test(value) ? value : undefined);
