// /v1/reports: POST queues an orders summary (202 + Location of the status resource); the job queue
// computes it in the background. GET answers the status, and once done the result as application/json
// or text/csv by `Accept` (Vary: Accept; 406 otherwise), with a strong ETag.
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { ApiDeps } from '../deps.js';
import { checkPreconditions, setValidators, strongEtag } from '../../http/conditional.js';
import { chooseMediaType } from '../../http/negotiation.js';
import { idempotencyKeyHeader } from '../../http/idempotency/index.js';
import type { Report } from '../../storage/repositories/reports-repository.js';
import { authenticatedPrincipal, canAccessUser, notFound, requireScope } from '../../resource-server/auth/index.js';
import type { Principal } from '../../http/principal.js';
import { REPORT_JOB } from './report-job.js';
import { validateReport } from './report-input.js';
import { reportCsv, reportJson, reportStatus } from './report-representation.js';
import { notModified, problemResponses } from '../../http/openapi-schemas.js';
import { CreateReportSchema, ReportParamsSchema, ReportResponse, ReportStatusSchema, type CreateReportBody } from './report-schemas.js';

const DONE_TYPES = ['application/json', 'text/csv'] as const;

type Create = { Body: CreateReportBody };
const tags = ['reports'];

export type ReportsServices = Pick<ApiDeps, 'clock' | 'reports' | 'idempotency' | 'jobs'>;

export async function reportsRoutes(parent: FastifyInstance, { services: core }: { services: ReportsServices }): Promise<void> {
  const app = parent.withTypeProvider<TypeBoxTypeProvider>();
  const { idempotency, reports, jobs } = core;
  const prefix = app.prefix;

  app.post('/reports', {
    schema: {
      tags,
      summary: 'Queue an orders summary report (202 + Location of its status)',
      operationId: 'createReport',
      body: CreateReportSchema,
      headers: idempotencyKeyHeader(false),
      response: { 202: ReportStatusSchema, ...problemResponses(400, 401, 403, 406, 409, 413, 415, 422) },
    },
    preHandler: requireScope('reports:write'),
    ...idempotency.route<Create>({ required: false }, async (request, tx) => {
      const principal = authenticatedPrincipal(request);
      const input = validateReport(request.body);
      const report = await tx.reports.create({
        ...input,
        clientId: principal.clientId,
        userId: principal.kind === 'user' ? principal.sub : null,
        now: new Date(core.clock.now()),
      });
      await jobs.enqueue(tx, REPORT_JOB, { reportId: report.id });
      return { status: 202, headers: { location: `${prefix}/reports/${report.id}` }, body: reportStatus(report, prefix) };
    }),
  });
  // The job row is visible to workers only once the request's transaction committed.
  app.addHook('onResponse', async (request, reply) => {
    if (request.method === 'POST' && request.routeOptions.url === `${prefix}/reports` && reply.statusCode === 202) jobs.wake();
  });

  app.get('/reports/:id', {
    schema: {
      tags,
      summary: 'Read a report: its status while it runs (Retry-After), then the result as JSON or CSV by Accept',
      operationId: 'getReport',
      params: ReportParamsSchema,
      response: {
        200: ReportResponse,
        ...notModified,
        ...problemResponses(401, 403, 404, 406),
      },
    },
    config: { produces: [] },
    preHandler: requireScope('reports:read'),
    handler: async (request, reply) => {
      const report = visible(authenticatedPrincipal(request), await reports.findById(request.params.id));
      if (report.status !== 'done') {
        chooseMediaType(request, reply, ['application/json']);
        if (report.status === 'pending' || report.status === 'running') reply.header('retry-after', '1');
        return reportStatus(report, prefix);
      }
      const type = chooseMediaType(request, reply, DONE_TYPES);
      const validators = { etag: strongEtag('report', report.id, type, report.completedAt!.getTime()), lastModified: report.completedAt! };
      if (!checkPreconditions(request, reply, validators)) return reply.send();
      setValidators(reply, validators);
      if (type === 'text/csv') return reply.type('text/csv; charset=utf-8').send(reportCsv(report, reports));
      return reply.type('application/json; charset=utf-8').send(await reportJson(report, reports, prefix));
    },
  });
}

/** Users see their own reports; service tokens see all. Anything else is a 404. */
function visible(principal: Principal, report: Report | undefined): Report {
  if (!report || !canAccessUser(principal, report.userId ?? '')) throw notFound('report');
  return report;
}
