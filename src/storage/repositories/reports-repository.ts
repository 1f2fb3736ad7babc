// Reports and their result rows. Computing a report is set-based SQL (INSERT … SELECT … GROUP BY), so
// its rows never pass through application memory; reading them back goes in keyset batches.
import { sql, type Selectable } from 'kysely';
import type { Db } from '../driver/database.js';
import type { ReportRowsTable, ReportsTable } from '../driver/schema.js';

export type ReportStatus = 'pending' | 'running' | 'done' | 'failed';

export interface Report {
  id: string;
  type: string;
  clientId: string;
  userId: string | null;
  from: Date;
  to: Date;
  status: ReportStatus;
  error: string | null;
  rowCount: number | null;
  createdAt: Date;
  completedAt: Date | null;
}

/** One aggregated row of a finished report (its report_id is implied by the report). */
export type ReportRow = Omit<Selectable<ReportRowsTable>, 'report_id'>;

export interface ReportsRepository {
  create(input: { type: string; clientId: string; userId: string | null; from: Date; to: Date; now: Date }): Promise<Report>;
  findById(id: string): Promise<Report | undefined>;
  markRunning(id: string, now: Date): Promise<Report | undefined>;
  /** Orders summary per UTC day, currency and status, written as the report's rows; marks it done. */
  computeOrdersSummary(report: Report, now: Date): Promise<void>;
  markFailed(id: string, error: string, now: Date): Promise<void>;
  rows(id: string, afterPosition: number, limit: number): Promise<ReportRow[]>;
}

const toReport = (r: Selectable<ReportsTable>): Report => ({
  id: r.id,
  type: r.type,
  clientId: r.client_id,
  userId: r.user_id,
  from: r.period_from,
  to: r.period_to,
  status: r.status as ReportStatus,
  error: r.error,
  rowCount: r.row_count,
  createdAt: r.created_at,
  completedAt: r.completed_at,
});

export function reportsRepository(db: Db): ReportsRepository {
  return {
    async create(input) {
      const row = await db
        .insertInto('reports')
        .values({
          type: input.type,
          client_id: input.clientId,
          user_id: input.userId,
          period_from: input.from,
          period_to: input.to,
          created_at: input.now,
          updated_at: input.now,
        })
        .returningAll()
        .executeTakeFirstOrThrow();
      return toReport(row);
    },
    async findById(id) {
      const row = await db.selectFrom('reports').selectAll().where('id', '=', id).executeTakeFirst();
      return row && toReport(row);
    },
    async markRunning(id, now) {
      const row = await db
        .updateTable('reports')
        .set({ status: 'running', updated_at: now })
        .where('id', '=', id)
        .where('status', 'in', ['pending', 'running'])
        .returningAll()
        .executeTakeFirst();
      return row && toReport(row);
    },
    async computeOrdersSummary(report, now) {
      await db.transaction().execute(async (tx) => {
        // A retried job starts from a clean slate.
        await tx.deleteFrom('report_rows').where('report_id', '=', report.id).execute();
        const userFilter = report.userId === null ? sql`` : sql`and user_id = ${report.userId}`;
        const inserted = await sql`
          insert into report_rows (report_id, position, day, currency, status, order_count, total_minor)
          select ${report.id}, row_number() over (order by day, currency, status), day, currency, status, order_count, total_minor
          from (
            select to_char(created_at at time zone 'UTC', 'YYYY-MM-DD') as day, currency, status,
                   count(*)::int as order_count, sum(total_minor)::bigint as total_minor
            from orders
            where created_at >= ${report.from} and created_at < ${report.to} ${userFilter}
            group by 1, 2, 3
          ) summary`.execute(tx);
        await tx
          .updateTable('reports')
          .set({ status: 'done', row_count: Number(inserted.numAffectedRows ?? 0n), completed_at: now, updated_at: now })
          .where('id', '=', report.id)
          .execute();
      });
    },
    async markFailed(id, error, now) {
      await db.updateTable('reports').set({ status: 'failed', error, updated_at: now }).where('id', '=', id).where('status', '!=', 'done').execute();
    },
    async rows(id, afterPosition, limit) {
      return db
        .selectFrom('report_rows')
        .select(['position', 'day', 'currency', 'status', 'order_count', 'total_minor'])
        .where('report_id', '=', id)
        .where('position', '>', afterPosition)
        .orderBy('position')
        .limit(limit)
        .execute();
    },
  };
}
