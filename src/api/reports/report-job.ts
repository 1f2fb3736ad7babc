// The background half of a report: the job handler that computes it (never inside a request).
import type { Clock } from '../../clock.js';
import type { JobHandler } from '../../jobs/worker.js';

export const REPORT_JOB = 'report';

export function reportJobHandler(clock: Clock): JobHandler {
  const now = () => new Date(clock.now());
  return {
    async run(payload, { store }) {
      const reports = store.reports;
      const report = await reports.markRunning((payload as { reportId: string }).reportId, now());
      if (!report) return; // already done (a duplicate delivery) or deleted
      await reports.computeOrdersSummary(report, now());
    },
    async failed(payload, _error, { store }) {
      await store.reports.markFailed((payload as { reportId: string }).reportId, 'The report could not be computed.', now());
    },
  };
}
