// The frame of every interaction page. All interpolated text goes through escapeHtml; there is no inline
// script, so the CSP of pageSecurityHeaders (no script at all, frame-ancestors 'none') holds on every page
// but the form-post one, whose CSP allows its one script file.
import { escapeHtml } from '../../http/html.js';

export function layout(title: string, body: string, scriptPath?: string): string {
  const script = scriptPath === undefined ? '' : `<script src="${escapeHtml(scriptPath)}" defer></script>`;
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(title)} · Gatehouse</title>
<meta name="viewport" content="width=device-width, initial-scale=1"><link rel="stylesheet" href="/assets/gatehouse.css">${script}</head>
<body><main class="card">
${body}
</main></body></html>`;
}

/** Exactly `<input type="hidden" name="NAME" value="VALUE">`: test helpers parse forms by this shape. */
export const hiddenInput = (name: string, value: string): string =>
  `<input type="hidden" name="${escapeHtml(name)}" value="${escapeHtml(value)}">`;
