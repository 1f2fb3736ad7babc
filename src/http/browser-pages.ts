// What every answer of a browser-facing context — pages, error pages, redirects — carries: unframeable,
// uncached and script-free (a page may have set a stricter or more specific variant already), with the
// brand's logo allowed. Used by the interaction pages and by /authorize, which the user's browser reaches.
import type { FastifyInstance } from 'fastify';
import { allowLogo, type Brand } from './brand.js';
import { pageSecurityHeaders } from './html.js';

export function installPageHeaders(app: FastifyInstance, brand: Brand): void {
  app.addHook('onSend', async (_request, reply, payload) => {
    for (const [name, value] of Object.entries(pageSecurityHeaders)) if (!reply.hasHeader(name)) reply.header(name, value);
    allowLogo(reply, brand);
    return payload;
  });
}
