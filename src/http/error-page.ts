import { escapeHtml } from './html.js';

export function renderErrorPage({ title, detail, traceId }: { title: string; detail: string; traceId: string }): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(title)} · Gatehouse</title>
<meta name="viewport" content="width=device-width, initial-scale=1"><link rel="stylesheet" href="/assets/gatehouse.css"></head>
<body><main class="card"><h1>${escapeHtml(title)}</h1><p>${escapeHtml(detail)}</p>
<p class="muted">Reference: <code>${escapeHtml(traceId)}</code></p></main></body></html>`;
}
