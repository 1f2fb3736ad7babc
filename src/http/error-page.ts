// The HTML error page of the browser face. Never a dead end: it links back to where the user came from
// when that address is safe to know (set by the thrower), else to the home page; and it says what the
// reference is for, since users otherwise ignore it.
import type { Brand } from './brand.js';
import type { PageLink } from './errors.js';
import { escapeHtml } from './html.js';
import { pageLayout } from './page-layout.js';

export interface ErrorPageInput {
  brand: Brand;
  title: string;
  detail: string;
  traceId: string;
  back?: PageLink | undefined;
}

export function renderErrorPage({ brand, title, detail, traceId, back }: ErrorPageInput): string {
  const forward = back ?? { href: '/', label: `Go to the ${brand.name} home page` };
  return pageLayout(
    brand,
    title,
    `<h1>${escapeHtml(title)}</h1><p>${escapeHtml(detail)}</p>
<p><a class="button" href="${escapeHtml(forward.href)}">${escapeHtml(forward.label)}</a></p>
<p class="muted">Reference: <code>${escapeHtml(traceId)}</code><br>If you ask your administrator for help, quote this reference: it identifies the log lines of this request.</p>`,
  );
}
