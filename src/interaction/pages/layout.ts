// The interaction pages share the frame of every server-rendered page (http/page-layout.ts).
import { escapeHtml } from '../../http/html.js';

export { pageLayout as layout } from '../../http/page-layout.js';

/** Exactly `<input type="hidden" name="NAME" value="VALUE">`: test helpers parse forms by this shape. */
export const hiddenInput = (name: string, value: string): string => `<input type="hidden" name="${escapeHtml(name)}" value="${escapeHtml(value)}">`;
