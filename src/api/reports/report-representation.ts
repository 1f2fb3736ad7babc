// A report's representations: its status (any time) and, once done, the result as JSON or as CSV
// (RFC 4180) streamed in batches straight from the database.
import { Readable } from 'node:stream';
import { formatMinor } from '../money.js';
import type { Report, ReportRow, ReportsRepository } from '../../storage/repositories/reports-repository.js';

const BATCH = 500;

export function reportStatus(report: Report, prefix: string) {
  return {
    id: report.id,
    type: report.type,
    status: report.status,
    from: report.from.toISOString(),
    to: report.to.toISOString(),
    created_at: report.createdAt.toISOString(),
    completed_at: report.completedAt?.toISOString() ?? null,
    ...(report.status === 'failed' ? { error: report.error } : {}),
    ...(report.status === 'done' ? { row_count: report.rowCount ?? 0 } : {}),
    _links: { self: { href: `${prefix}/reports/${report.id}` } },
  };
}

const representRow = (r: ReportRow) => ({
  day: r.day,
  currency: r.currency,
  status: r.status,
  order_count: r.order_count,
  total: formatMinor(r.total_minor, r.currency),
});

async function* allRows(reports: ReportsRepository, id: string): AsyncGenerator<ReportRow> {
  for (let after = 0; ; ) {
    const batch = await reports.rows(id, after, BATCH);
    yield* batch;
    if (batch.length < BATCH) return;
    after = batch.at(-1)!.position;
  }
}

export async function reportJson(report: Report, reports: ReportsRepository, prefix: string) {
  const rows = [];
  for await (const row of allRows(reports, report.id)) rows.push(representRow(row));
  return { ...reportStatus(report, prefix), rows };
}

const CSV_HEADER = 'day,currency,status,order_count,total\r\n';
// RFC 4180 §2: quote fields holding a comma, quote or line break; a leading =+-@ is quoted with a
// prefix so a spreadsheet never evaluates a cell as a formula (CSV injection).
function csvField(value: string | number): string {
  let text = String(value);
  if (/^[=+\-@\t\r]/.test(text)) text = `'${text}`;
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

export function reportCsv(report: Report, reports: ReportsRepository): Readable {
  async function* lines(): AsyncGenerator<string> {
    yield CSV_HEADER;
    for await (const row of allRows(reports, report.id)) {
      const r = representRow(row);
      yield `${[r.day, r.currency, r.status, r.order_count, r.total].map(csvField).join(',')}\r\n`;
    }
  }
  return Readable.from(lines());
}
