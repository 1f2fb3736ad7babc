// The self-service flows of issue 31 (docs/email.md): forgotten passwords, sign-up, e-mail change, and the
// security notices. Pages are registered on the app (they share the page conventions of /invitation);
// the jobs that decide, after the response, what an address receives are registered on the job queue.
import type { FastifyInstance } from 'fastify';
import type { JobQueue } from '../jobs/worker.js';
import type { SelfServiceDeps } from './deps.js';
import { emailChangePages } from './email-change.js';
import type { SecurityNotices } from './notices.js';
import { passwordResetPages, type AccountFactors } from './password-reset-pages.js';
import { PASSWORD_RESET_JOB, passwordResetJob } from './password-reset.js';
import { signupPages } from './signup-pages.js';
import { purgeExpiredSignups, SIGNUP_JOB, signupJob } from './signup.js';

const SIGNUP_PURGE_INTERVAL_MS = 3_600_000;

export type SelfService = SelfServiceDeps & { notices: SecurityNotices; factorsOf(userId: string): Promise<AccountFactors> };

export function registerSelfServiceJobs(jobs: Pick<JobQueue, 'handle' | 'every'>, deps: SelfServiceDeps): void {
  jobs.handle(PASSWORD_RESET_JOB, passwordResetJob(deps));
  jobs.handle(SIGNUP_JOB, signupJob(deps));
  // Bounded unverified sign-ups: a request that was never verified is gone once its link expired.
  jobs.every('signup-requests-purge', SIGNUP_PURGE_INTERVAL_MS, () => purgeExpiredSignups(deps));
}

export function selfServicePages(app: FastifyInstance, deps: SelfService): void {
  passwordResetPages(app, deps);
  signupPages(app, deps);
  emailChangePages(app, deps);
}

export { FORGOT_PATH } from './password-reset.js';
export { SIGNUP_PATH, signupOpen } from './signup.js';
export { requestEmailChange } from './email-change.js';
export { securityNotices, type SecurityNotices } from './notices.js';
