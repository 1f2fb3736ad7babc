// The frame of every server-rendered page (home, login, consent, logout, errors, demo). All interpolated
// text goes through escapeHtml and there is no inline script, so the pages' CSP (no inline script or style,
// frame-ancestors 'none') holds everywhere; the accent colour comes from /assets/brand.css.
import type { Brand } from './brand.js';
import { escapeHtml } from './html.js';

export interface LayoutOptions {
  /** A wider card, for pages that show tokens and JSON (the demo). */
  wide?: boolean;
  /** A script file of our own origin (only the form-post page has one; its CSP allows exactly that file). */
  scriptPath?: string;
  /** Script files of our own origin, in order (the passkey pages; their CSP allows script-src 'self'). */
  scriptPaths?: readonly string[];
  /** The page's language (BCP 47), for pages written in the reader's language (src/mail/catalogue.ts). */
  lang?: string;
  /**
   * Where the browser goes on to at once (meta refresh: no script, a new navigation): a path of this server,
   * or the client's validated redirect URI with the response (interaction/pages/hand-over-page.ts).
   */
  refreshTo?: string;
}

export function pageLayout(brand: Brand, title: string, body: string, options: LayoutOptions = {}): string {
  const paths = [...(options.scriptPath === undefined ? [] : [options.scriptPath]), ...(options.scriptPaths ?? [])];
  const script = paths.map((path) => `<script src="${escapeHtml(path)}" defer></script>`).join('');
  const refresh = options.refreshTo === undefined ? '' : `<meta http-equiv="refresh" content="0; url=${escapeHtml(options.refreshTo)}">`;
  const logo = brand.logoUrl ? `<img class="logo" src="${escapeHtml(brand.logoUrl)}" alt="">` : '';
  return `<!doctype html>
<html lang="${escapeHtml(options.lang ?? 'en')}"><head><meta charset="utf-8"><title>${escapeHtml(title)} · ${escapeHtml(brand.name)}</title>
<meta name="viewport" content="width=device-width, initial-scale=1">${refresh}
<link rel="stylesheet" href="/assets/gatehouse.css"><link rel="stylesheet" href="/assets/brand.css">${script}</head>
<body><main class="card${options.wide ? ' wide' : ''}">
<header class="brand"><a href="/">${logo}<span>${escapeHtml(brand.name)}</span></a></header>
${body}
</main></body></html>`;
}
