// The admin console at /console (docs/console.md): one HTML shell for every console path and the console's
// own script and style files, served from memory. Everything the console does goes through the public
// admin API (/admin/v1) with the operator's own token (the built-in public client
// oauth/clients/console-client.ts): there is no console-only endpoint here, so whatever the console can do,
// a script can do the same way.
//
// The front end is plain ES modules in console/ (beside migrations/), served byte for byte as they are in
// the repository; `npm run typecheck` checks them with tsc (tsconfig.console.json: checkJs, DOM types), so
// they are typed without a build step that tests, `npm start` and the Docker image would each have to run.
import { readdirSync, readFileSync } from 'node:fs';
import { extname, join, relative } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { packageRoot } from '../storage/driver/package-root.js';
import { CONSOLE_CLIENT_ID, CONSOLE_PATH, consoleRedirectUri } from '../oauth/clients/console-client.js';
import { escapeHtml } from '../http/html.js';

/** The console's pages may load only their own files and call only this origin (the admin API, /token). */
const CONSOLE_CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'";

const CONTENT_TYPES: Record<string, string> = { '.js': 'text/javascript; charset=utf-8', '.css': 'text/css; charset=utf-8' };

/** Every .js and .css file under console/, by its path there ('app.js', 'pages/users.js'). */
function readAssets(): Map<string, { body: string; type: string }> {
  const root = join(packageRoot(), 'console');
  const files = new Map<string, { body: string; type: string }>();
  const walk = (dir: string): void => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (CONTENT_TYPES[extname(entry.name)])
        files.set(relative(root, path).split('\\').join('/'), { body: readFileSync(path, 'utf8'), type: CONTENT_TYPES[extname(entry.name)]! });
    }
  };
  walk(root);
  return files;
}

/** The shell: the facts the script needs (as data attributes, never inline script) and the script itself. */
function shell(issuer: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark">
<title>Gatehouse console</title>
<link rel="stylesheet" href="${CONSOLE_PATH}/assets/console.css">
<script type="module" src="${CONSOLE_PATH}/assets/app.js"></script>
</head>
<body data-issuer="${escapeHtml(issuer)}" data-client-id="${CONSOLE_CLIENT_ID}" data-redirect-uri="${escapeHtml(consoleRedirectUri(issuer))}">
<a class="skip" href="#main">Skip to content</a>
<div id="app"><main id="main" tabindex="-1"><h1>Gatehouse console</h1><p>Loading… The console needs JavaScript.</p></main></div>
</body>
</html>
`;
}

export function consoleRoutes(app: FastifyInstance, { issuer }: { issuer: string }): void {
  const assets = readAssets();
  const html = shell(issuer);
  const page = { config: { face: 'page' as const, limit: 'pages' as const } };
  const sendShell = async (_request: unknown, reply: import('fastify').FastifyReply) => {
    reply
      .headers({
        'content-security-policy': CONSOLE_CSP,
        'x-frame-options': 'DENY',
        'referrer-policy': 'no-referrer',
        'x-content-type-options': 'nosniff',
        'cache-control': 'no-store',
      })
      .type('text/html; charset=utf-8');
    return html;
  };
  app.get(CONSOLE_PATH, page, async (_request, reply) => reply.redirect(`${CONSOLE_PATH}/`, 308));
  app.get(`${CONSOLE_PATH}/`, page, sendShell);
  app.get(`${CONSOLE_PATH}/*`, page, async (request, reply) => {
    const rest = (request.params as { '*': string })['*'];
    if (!rest.startsWith('assets/')) return sendShell(request, reply);
    const asset = assets.get(rest.slice('assets/'.length));
    if (!asset) return reply.code(404).type('text/plain; charset=utf-8').send('Not found');
    reply.headers({ 'x-content-type-options': 'nosniff', 'cache-control': 'no-cache' }).type(asset.type);
    return asset.body;
  });
}
