// GET / — where a newcomer lands first: what this server is and where to go next (the docs, the
// discovery document, the keys, and the demo application when it is served).
import type { FastifyInstance } from 'fastify';
import { allowLogo, type Brand } from './brand.js';
import { escapeHtml, pageSecurityHeaders } from './html.js';
import { pageLayout } from './page-layout.js';

export interface HomePageOptions {
  brand: Brand;
  demoEnabled: boolean;
}

function renderHomePage({ brand, demoEnabled }: HomePageOptions): string {
  const demo = demoEnabled
    ? `<p>See a sign-in work end to end: the <a href="/demo">demo application</a> signs you in here, shows the tokens it received and calls the API with them.</p>`
    : '';
  return pageLayout(
    brand,
    'Home',
    `<h1>Welcome to ${escapeHtml(brand.name)}</h1>
<p>An OAuth 2.0 and OpenID Connect authorization server, with a REST API that accepts its tokens.</p>
${demo}
<ul class="links">
${demoEnabled ? '<li><a href="/demo">Demo application</a></li>' : ''}
<li><a href="/docs">API documentation</a></li>
<li><a href="/.well-known/openid-configuration">OpenID Connect discovery</a></li>
<li><a href="/.well-known/jwks.json">Signing keys (JWKS)</a></li>
</ul>`,
  );
}

export function homePage(app: FastifyInstance, options: HomePageOptions): void {
  const html = renderHomePage(options);
  app.get('/', { config: { face: 'page' } }, async (_request, reply) => {
    reply.headers({ ...pageSecurityHeaders, 'cache-control': 'no-cache' }).type('text/html; charset=utf-8');
    allowLogo(reply, options.brand);
    return html;
  });
}
