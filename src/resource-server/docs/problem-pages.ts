// GET /problems/{code}: the human page behind every Problem Details `type` URI (RFC 9457 §3.1.1).
// Unknown codes are a 404 problem. Pages come straight from the catalogue in problem-types.ts.
import type { FastifyInstance } from 'fastify';
import { escapeHtml, pageSecurityHeaders } from '../../http/html.js';
import { withCode } from './markup.js';
import { ProblemError } from '../../http/errors.js';
import { isProblemCode, problemTypes } from '../../http/problem-types.js';

function renderProblemPage(code: string, p: { status: number; title: string; description: string }): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(p.title)}</title>
<meta name="viewport" content="width=device-width, initial-scale=1"><link rel="stylesheet" href="/assets/gatehouse.css"></head>
<body><main class="card"><h1>${escapeHtml(p.title)}</h1><p>HTTP status <strong>${p.status}</strong>, code <code>${escapeHtml(code)}</code>.</p>
<p>${withCode(p.description)}</p><p class="muted">Clients should branch on <code>code</code>, not on the title or detail. <a href="/docs">API documentation</a></p></main></body></html>`;
}

export function problemPages(app: FastifyInstance): void {
  app.get<{ Params: { code: string } }>('/problems/:code', { schema: { hide: true } }, async (request, reply) => {
    const { code } = request.params;
    if (!isProblemCode(code)) throw new ProblemError('not-found', 'No such problem type.');
    reply.headers({ ...pageSecurityHeaders, 'cache-control': 'public, max-age=3600' }).type('text/html; charset=utf-8');
    return renderProblemPage(code, problemTypes[code]);
  });
}
