// GET /docs: the OpenAPI document rendered on the server as plain HTML — no script, no CDN, so it works
// under the same strict CSP as every other page; GET /openapi.json: the document itself.
import type { FastifyInstance } from 'fastify';
import { escapeHtml, pageSecurityHeaders } from '../../http/html.js';
import { withCode } from './markup.js';
import { problemTypes } from '../../http/problem-types.js';

interface Operation {
  summary?: string;
  security?: Record<string, string[]>[];
  responses?: Record<string, { description?: string }>;
  requestBody?: { content?: Record<string, unknown> };
}
interface OpenApiDocument {
  info: { title: string; description?: string; version: string };
  paths?: Record<string, Record<string, Operation>>;
}

// On a phone the operations table is wider than the screen: it scrolls inside its own box, the page never
// sideways; long paths and codes in prose wrap.
const css = `
body { font-family: system-ui, sans-serif; margin: 2rem auto; max-width: 60rem; padding: 0 1rem; color: #1d2430; }
p, li { overflow-wrap: anywhere; }
.scroll { overflow-x: auto; margin: 1rem 0 2rem; }
table { border-collapse: collapse; width: 100%; }
th, td { text-align: left; padding: .4rem .6rem; border-bottom: 1px solid #e4e7ec; vertical-align: top; }
code, .method { font-family: ui-monospace, monospace; font-size: .9rem; }
.method { font-weight: 700; text-transform: uppercase; }
`;

function operationRow(path: string, method: string, op: Operation): string {
  // Several requirement objects are alternatives (OpenAPI): "payments:read or payments:write".
  const scopes = (op.security ?? []).map((s) => Object.values(s).flat().join(' ')).join(' or ');
  const statuses = Object.keys(op.responses ?? {}).join(' ');
  const media = Object.keys(op.requestBody?.content ?? {}).join(', ');
  return `<tr><td class="method">${escapeHtml(method)}</td><td><code>${escapeHtml(path)}</code></td><td>${escapeHtml(op.summary ?? '')}${media ? `<br><small>body: <code>${escapeHtml(media)}</code></small>` : ''}</td><td><code>${escapeHtml(scopes)}</code></td><td>${escapeHtml(statuses)}</td></tr>`;
}

function renderDocs(doc: OpenApiDocument): string {
  const rows = Object.entries(doc.paths ?? {}).flatMap(([path, methods]) => Object.entries(methods).map(([method, op]) => operationRow(path, method, op)));
  const problems = Object.entries(problemTypes)
    .map(([code, p]) => `<li><a href="/problems/${escapeHtml(code)}"><code>${escapeHtml(code)}</code></a> (${p.status}) ${escapeHtml(p.title)}</li>`)
    .join('');
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(doc.info.title)}</title>
<meta name="viewport" content="width=device-width, initial-scale=1"><link rel="stylesheet" href="/assets/docs.css"></head><body>
<h1>${escapeHtml(doc.info.title)} <small>v${escapeHtml(doc.info.version)}</small></h1>
<p>${withCode(doc.info.description ?? '')}</p><p>Machine-readable: <a href="/openapi.json">/openapi.json</a> (OpenAPI 3.1).</p>
<h2>Operations</h2><div class="scroll" role="region" aria-label="Operations" tabindex="0"><table><thead><tr><th>Method</th><th>Path</th><th>Summary</th><th>Scopes</th><th>Responses</th></tr></thead><tbody>${rows.join('')}</tbody></table></div>
<h2>Error codes</h2><ul>${problems}</ul></body></html>`;
}

export function docsRoutes(app: FastifyInstance): void {
  const hidden = { schema: { hide: true } };
  app.get('/openapi.json', hidden, async (_request, reply) => {
    reply.header('cache-control', 'public, max-age=300');
    return app.swagger();
  });
  app.get('/docs', hidden, async (_request, reply) => {
    reply.headers({ ...pageSecurityHeaders, 'cache-control': 'public, max-age=300' }).type('text/html; charset=utf-8');
    return renderDocs(app.swagger() as unknown as OpenApiDocument);
  });
  app.get('/assets/docs.css', hidden, async (_request, reply) => {
    reply.header('cache-control', 'public, max-age=3600').type('text/css; charset=utf-8');
    return css;
  });
}
