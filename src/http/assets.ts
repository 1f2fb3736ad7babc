// The one stylesheet of the server-rendered pages and the one script (the form-post auto-submit), served
// from memory: page CSPs allow only our own origin, and no page has inline script.
import type { FastifyInstance } from 'fastify';

const css = `
:root { color-scheme: light dark; font-family: system-ui, sans-serif; }
body { margin: 0; min-height: 100vh; display: grid; place-items: center; background: #f4f5f7; color: #1d2430; }
.card { background: #fff; padding: 2rem 2.5rem; border-radius: 12px; box-shadow: 0 2px 12px rgba(0,0,0,.08); max-width: 28rem; width: 100%; }
h1 { font-size: 1.35rem; margin-top: 0; }
label { display: block; margin: .75rem 0 .25rem; font-weight: 600; }
input[type=text], input[type=password] { width: 100%; box-sizing: border-box; padding: .6rem; border: 1px solid #c5cad3; border-radius: 6px; font-size: 1rem; }
button { margin-top: 1.25rem; padding: .6rem 1.2rem; border: 0; border-radius: 6px; background: #2454d6; color: #fff; font-size: 1rem; cursor: pointer; }
button.secondary { background: #e4e7ec; color: #1d2430; margin-left: .5rem; }
.error { color: #b42318; } .muted { color: #667085; font-size: .85rem; }
ul.scopes { padding-left: 1.2rem; } code { font-size: .85rem; }
@media (prefers-color-scheme: dark) { body { background: #111418; color: #e6e8eb; } .card { background: #1c2026; } }
`;

// Runs after parsing (defer): sends the form-post response form; the page's button does the same by hand.
const formPostScript = `document.querySelector('form[data-auto-submit]')?.submit();\n`;

export const FORM_POST_SCRIPT_PATH = '/assets/form-post.js';

export function assetRoutes(app: FastifyInstance): void {
  app.get(FORM_POST_SCRIPT_PATH, async (_request, reply) => {
    reply.header('cache-control', 'public, max-age=3600').type('text/javascript; charset=utf-8');
    return formPostScript;
  });
  app.get('/assets/gatehouse.css', async (_request, reply) => {
    reply.header('cache-control', 'public, max-age=3600').type('text/css; charset=utf-8');
    return css;
  });
}
