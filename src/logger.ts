// Structured pino logging. Requests are logged by method and path only (never the query string, which
// could carry a misplaced token), and known secret-bearing fields are redacted wherever they appear.
import type { FastifyRequest, FastifyReply } from 'fastify';
import type { LoggerOptions } from 'pino';

const redactedPaths = [
  'password',
  'client_secret',
  'code',
  'code_verifier',
  'refresh_token',
  'access_token',
  'id_token',
  'token',
  'client_assertion',
  'secret',
  '*.password',
  '*.client_secret',
  '*.code',
  '*.code_verifier',
  '*.refresh_token',
  '*.access_token',
  '*.id_token',
  '*.token',
  '*.client_assertion',
  '*.secret',
  'req.headers.authorization',
  'req.headers.cookie',
  'req.headers.dpop',
  'res.headers["set-cookie"]',
];

/**
 * `traceFields`, when tracing is on (docs/observability.md#traces), adds the active span's `trace_id` and
 * `span_id` to every line; a line that names the request's `trace_id` itself names the same trace.
 */
export function loggerOptions(level: string, traceFields?: () => Record<string, string>): LoggerOptions {
  return {
    level,
    ...(traceFields ? { mixin: traceFields } : {}),
    redact: { paths: redactedPaths, censor: '[redacted]' },
    serializers: {
      req: (req: FastifyRequest) => ({
        method: req.method,
        path: req.url.split('?')[0],
        trace_id: req.id,
      }),
      res: (res: FastifyReply) => ({ status: res.statusCode }),
    },
  };
}
