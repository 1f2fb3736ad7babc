// The background half of a report: the job handler that computes it (never inside a request).
import type { Clock } from '../../clock.js';
import type { JobHandler } from '../../jobs/worker.js';
import { reportsRepository } from '../../storage/reports-repository.js';

export const REPORT_JOB = 'report';

export function reportJobHandler(clock: Clock): JobHandler {
  const now = () => new Date(clock.now());
  return {
    async run(payload, { db }) {
      const reports = reportsRepository(db);
      const report = await reports.markRunning((payload as { reportId: string }).reportId, now());
      if (!report) return; // already done (a duplicate delivery) or deleted
      await reports.computeOrdersSummary(report, now());
    },
    async failed(payload, _error, { db }) {
      await reportsRepository(db).markFailed((payload as { reportId: string }).reportId, 'The report could not be computed.', now());
    },
  };
}
