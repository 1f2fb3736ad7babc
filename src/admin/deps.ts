// What the admin API /admin/v1 needs, declared here and satisfied by the composition root (src/services.ts):
// the administration services' core (the CLI builds the same services from it), plus what a resource server
// face needs — token checks against this process's keys and revocations, DPoP, the job queue, and the
// idempotency store and cursor codec it shares with /v1.
import type { AdminCore } from '../admin-services/deps.js';
import type { CursorCodec } from '../http/pagination/index.js';
import type { Idempotency } from '../http/idempotency/index.js';
import type { JobQueue } from '../jobs/worker.js';
import type { RevocationFeed } from '../storage/repositories/revocation-feed.js';
import type { DpopDeps } from '../tokens/dpop/proof.js';

export interface AdminDeps extends AdminCore {
  /** Revoked access tokens held in memory (per app): the admin API checks its tokens against them. */
  readonly revocationFeed: RevocationFeed;
  readonly dpop: DpopDeps;
  /** Periodic purges (audit retention, used account tokens) run on the app's job queue. */
  readonly jobs: JobQueue;
  readonly idempotency: Idempotency;
  readonly cursors: CursorCodec;
}
