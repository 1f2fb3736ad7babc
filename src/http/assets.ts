// The stylesheets of the server-rendered pages and the one script (the form-post auto-submit), served from
// memory: page CSPs allow only our own origin, and no page has inline script or style. brand.css is generated
// from the validated accent colour, so branding needs no inline style either.
import type { FastifyInstance } from 'fastify';
import { brandStylesheet, type Brand } from './brand.js';

const css = `
*, *::before, *::after { box-sizing: border-box; }
:root { color-scheme: light dark; font-family: system-ui, sans-serif; --accent: #2454d6; }
body { margin: 0; min-height: 100vh; display: grid; place-items: center; padding: 1rem; background: #f4f5f7; color: #1d2430; }
.card { background: #fff; padding: 1.5rem clamp(1rem, 5vw, 2.5rem); border-radius: 12px; box-shadow: 0 2px 12px rgba(0,0,0,.08); max-width: 28rem; width: 100%; min-width: 0; overflow-wrap: anywhere; }
.card.wide { max-width: 52rem; }
.brand { margin-bottom: 1rem; }
.brand a { display: inline-flex; align-items: center; gap: .5rem; color: inherit; text-decoration: none; font-weight: 700; }
.brand .logo { max-height: 2rem; max-width: 8rem; }
h1 { font-size: 1.35rem; margin-top: 0; } h2 { font-size: 1.05rem; margin: 1.5rem 0 .5rem; }
a { color: var(--accent); }
label { display: block; margin: .75rem 0 .25rem; font-weight: 600; }
input[type=text], input[type=password] { width: 100%; padding: .6rem; border: 1px solid #c5cad3; border-radius: 6px; font-size: 1rem; }
button, a.button { display: inline-block; margin-top: 1.25rem; padding: .6rem 1.2rem; border: 0; border-radius: 6px; background: var(--accent); color: #fff; font: inherit; font-size: 1rem; line-height: 1.25; cursor: pointer; text-decoration: none; }
button:disabled { opacity: .5; cursor: not-allowed; }
button.secondary, a.button.secondary { background: #e4e7ec; color: #1d2430; }
.actions { display: flex; flex-wrap: wrap; gap: .5rem; align-items: center; }
.actions button, .actions a.button { margin-top: 1.25rem; }
form.inline { display: inline; }
.error { color: #b42318; } .notice { border-left: 4px solid var(--accent); padding: .5rem .75rem; background: rgba(0,0,0,.04); }
.muted { color: #667085; font-size: .85rem; }
ul.scopes, ul.links { padding-left: 1.2rem; } ul.links li { margin: .35rem 0; }
code { font-size: .85rem; }
ul.rows { list-style: none; padding: 0; } ul.rows li { padding: .6rem 0; border-bottom: 1px solid rgba(127,127,127,.25); }
button.small { margin-top: .4rem; padding: .35rem .8rem; font-size: .9rem; }
.qr { margin: .75rem 0; } .qr svg { display: block; width: 12rem; max-width: 100%; height: auto; background: #fff; }
ol.codes { font-size: 1rem; } ol.codes code { white-space: nowrap; } @media (min-width: 30rem) { ol.codes { columns: 2; } } summary { cursor: pointer; margin-top: 1rem; }
pre { background: #f4f5f7; padding: .75rem; border-radius: 6px; overflow-x: auto; max-width: 100%; font-size: .8rem; white-space: pre-wrap; word-break: break-all; }
@media (prefers-color-scheme: dark) {
  body { background: #111418; color: #e6e8eb; } .card { background: #1c2026; } pre { background: #111418; }
  input[type=text], input[type=password] { background: #111418; color: #e6e8eb; border-color: #3a414c; }
  button.secondary, a.button.secondary { background: #2c323b; color: #e6e8eb; } a { color: color-mix(in srgb, var(--accent) 70%, white); }
  .muted { color: #98a2b3; }
  /* The light-mode red is 2.5:1 on the dark card; this one is above WCAG's 4.5:1 (test/e2e/page-layout.browser.test.ts). */
  .error { color: #f97066; } .notice { background: rgba(255,255,255,.06); }
}
`;

// Runs after parsing (defer): sends the form-post response form; the page's button does the same by hand.
const formPostScript = `document.querySelector('form[data-auto-submit]')?.submit();\n`;

export const FORM_POST_SCRIPT_PATH = '/assets/form-post.js';

export function assetRoutes(app: FastifyInstance, brand: Brand): void {
  const brandCss = brandStylesheet(brand);
  app.get(FORM_POST_SCRIPT_PATH, async (_request, reply) => {
    reply.header('cache-control', 'public, max-age=3600').type('text/javascript; charset=utf-8');
    return formPostScript;
  });
  app.get('/assets/gatehouse.css', async (_request, reply) => {
    reply.header('cache-control', 'public, max-age=3600').type('text/css; charset=utf-8');
    return css;
  });
  app.get('/assets/brand.css', async (_request, reply) => {
    // Short cache: an operator who changes the colour sees it after a restart without a hard reload.
    reply.header('cache-control', 'public, max-age=300').type('text/css; charset=utf-8');
    return brandCss;
  });
}
