// The /v1/reports schemas: one source for input validation (wrong shapes or JSON types → 400), response
// serialisation and the OpenAPI document. Value rules live in report-input.ts (failures → 422).
import { Type, type Static } from '@sinclair/typebox';
import { REPORT_TYPES, type ReportType } from './report-input.js';

export const CreateReportSchema = Type.Object({
  type: Type.Unsafe<ReportType>({
    type: 'string',
    enum: [...REPORT_TYPES],
    description: 'What to aggregate: `orders-summary` (order count and totals per currency).',
  }),
  from: Type.String({ description: 'Start (inclusive): YYYY-MM-DD or RFC 3339 date-time.', examples: ['2025-05-01'] }),
  to: Type.String({ description: 'End (exclusive): YYYY-MM-DD or RFC 3339 date-time.', examples: ['2025-06-01'] }),
});

export const ReportParamsSchema = Type.Object({ id: Type.String({ maxLength: 200 }) });

export const ReportStatusSchema = Type.Object(
  {
    id: Type.String(),
    type: Type.String(),
    status: Type.Union([Type.Literal('pending'), Type.Literal('running'), Type.Literal('done'), Type.Literal('failed')]),
    from: Type.String({ format: 'date-time' }),
    to: Type.String({ format: 'date-time' }),
    created_at: Type.String({ format: 'date-time' }),
    completed_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
    error: Type.Optional(Type.Union([Type.String(), Type.Null()])),
    row_count: Type.Optional(Type.Integer()),
    _links: Type.Record(Type.String(), Type.Object({ href: Type.String() })),
  },
  { description: 'Queued: poll the Location until status is done' },
);

/**
 * The 200 of GET /v1/reports/{id}: the status while the report is pending or failed, the result once done,
 * as JSON or CSV by `Accept`. The route sends it itself (it negotiates), so this documents, not serialises.
 */
export const ReportResponse = {
  description: 'The status of a pending or failed report, or the finished report as application/json or text/csv',
  content: { 'application/json': { schema: Type.Object({}, { additionalProperties: true }) }, 'text/csv': { schema: Type.String() } },
};

export type CreateReportBody = Static<typeof CreateReportSchema>;
