// What the resource API /v1 needs, declared here and satisfied by the composition root (src/services.ts):
// each resource takes a `Pick<ApiDeps, …>` of what it uses.
import type { Clock } from '../clock.js';
import type { Config } from '../config.js';
import type { CursorCodec } from '../http/pagination/index.js';
import type { Idempotency } from '../http/idempotency/index.js';
import type { RateLimits } from '../http/rate-limit.js';
import type { JobQueue } from '../jobs/worker.js';
import type { ResourceServerAuth } from '../resource-server/auth/index.js';
import type { Store } from '../storage/store.js';
import type { OrdersRepository } from '../storage/repositories/orders-repository.js';
import type { PaymentsRepository } from '../storage/repositories/payments-repository.js';
import type { ReportsRepository } from '../storage/repositories/reports-repository.js';
import type { UsersRepository } from '../storage/repositories/users-repository.js';
import type { OutboxWriter } from '../outbox/writer.js';

export interface ApiDeps {
  readonly config: Config;
  readonly clock: Clock;
  readonly store: Store;
  readonly rateLimits: RateLimits;
  /** Bearer authentication of /v1: in-process keys, or a remote JWKS (JWKS_URL). */
  readonly resourceAuth: ResourceServerAuth;
  /** Shared with /admin/v1: one idempotency store and one cursor codec (docs/idempotency.md). */
  readonly idempotency: Idempotency;
  readonly cursors: CursorCodec;
  /** The job queue reports are generated on. */
  readonly jobs: JobQueue;
  readonly users: UsersRepository;
  readonly orders: OrdersRepository;
  readonly payments: PaymentsRepository;
  readonly reports: ReportsRepository;
  /** A password change through /v1 ends the user's sessions: their logout tokens are queued (docs/backchannel-logout.md). */
  readonly outbox: OutboxWriter;
}
