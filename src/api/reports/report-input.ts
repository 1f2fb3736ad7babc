// POST /v1/reports body: `{type: "orders-summary", from, to}`; dates are RFC 3339 date-times or full
// dates (a date means its UTC midnight). Semantic failures are 422 with one entry per field.
import { fieldErrors } from '../../http/validation.js';

export const REPORT_TYPES = ['orders-summary'] as const;
export type ReportType = (typeof REPORT_TYPES)[number];
const MAX_RANGE_MS = 366 * 86_400_000;
const DATE = /^\d{4}-\d{2}-\d{2}$/;
const DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?(Z|[+-]\d{2}:\d{2})$/i;

export function validateReport(body: { type: string; from: string; to: string }) {
  const errors = fieldErrors();
  if (!(REPORT_TYPES as readonly string[]).includes(body.type)) errors.add('type', `must be one of ${REPORT_TYPES.join(', ')}`);
  const from = parseInstant(body.from);
  const to = parseInstant(body.to);
  if (!from) errors.add('from', 'must be a date (YYYY-MM-DD) or an RFC 3339 date-time');
  if (!to) errors.add('to', 'must be a date (YYYY-MM-DD) or an RFC 3339 date-time');
  if (from && to && (to <= from || to.getTime() - from.getTime() > MAX_RANGE_MS)) errors.add('to', 'must be after from, at most 366 days later');
  errors.throwIfAny();
  return { type: body.type, from: from!, to: to! };
}

function parseInstant(value: string): Date | undefined {
  if (!DATE.test(value) && !DATE_TIME.test(value)) return undefined;
  const date = new Date(DATE.test(value) ? `${value}T00:00:00Z` : value);
  return Number.isNaN(date.getTime()) ? undefined : date;
}
