// The federated sign-in's world for browser tests: a Gatehouse app (outbound policy opened to loopback,
// where the upstream listens), a REAL upstream started here (node-oidc-provider, test/helpers/oidc-upstream.ts)
// registered as identity providers through discovery, a client page, and Chromium. Not a test file.
import { createServer, type Server } from 'node:http';
import type { Page } from 'playwright-core';
import { STRICT_OUTBOUND, type OutboundPolicy } from '../../src/http/outbound/outbound-policy.js';
import { discoverProvider } from '../../src/federation/discovery.js';
import { federationRedirectUri } from '../../src/federation/callback-uri.js';
import { DEFAULT_UPSTREAM_LIMITS } from '../../src/federation/upstream-fetch.js';
import { identityProvidersRepository, type IdentityProvider, type NewIdentityProvider } from '../../src/storage/repositories/identity-providers-repository.js';
import { freePort } from '../../scripts/pg-cluster.mjs';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { launchChromium, type ChromiumProfile } from '../helpers/chromium.js';
import { startOidcUpstream, upstreamProviderSettings, type OidcUpstream } from '../helpers/oidc-upstream.js';

export const LOOPBACK: OutboundPolicy = { ...STRICT_OUTBOUND, allowedClasses: ['loopback'], allowHttp: true };
export const SECRET_ENV = 'FEDERATION_E2E_UPSTREAM_SECRET';
/** The slugs the upstream accepts callbacks for. */
export const SLUGS = ['upstream', 'acme', 'github-like', 'broken', 'other'] as const;

export interface FederationWorld {
  t: TestApp;
  upstream: OidcUpstream;
  chromium: ChromiumProfile;
  clientPage: { server: Server; redirectUri: string };
  addProvider(over: Partial<NewIdentityProvider> & { slug: string }): Promise<IdentityProvider>;
  close(): Promise<void>;
}

/** `host: 'localhost'` for tests with passkeys (WebAuthn refuses an IP address as the RP ID). */
export async function startFederationWorld(options: { host?: 'localhost' | '127.0.0.1' } = {}): Promise<FederationWorld> {
  const port = await freePort();
  const issuer = `http://${options.host ?? '127.0.0.1'}:${port}`;
  const upstream = await startOidcUpstream({ redirectUris: SLUGS.map((slug) => federationRedirectUri(issuer, slug)) });
  process.env[SECRET_ENV] = upstream.clientSecret;
  const t = await startTestApp({ env: { PORT: String(port), ISSUER: issuer }, outbound: LOOPBACK });
  const discovered = await discoverProvider(upstream.issuer, { outbound: LOOPBACK, limits: DEFAULT_UPSTREAM_LIMITS });
  const providers = identityProvidersRepository(t.core.db);
  const server = createServer((request, response) => {
    const query = new URL(request.url ?? '/', 'http://client').searchParams;
    response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    response.end(
      `<!doctype html><title>Test client</title><h1>Back at the client</h1><p id="code">${(query.get('code') ?? '').replace(/[<&]/g, '')}</p><p id="error">${(query.get('error') ?? '').replace(/[<&]/g, '')}</p>`,
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address() as { port: number };
  const chromium = await launchChromium();
  return {
    t,
    upstream,
    chromium,
    clientPage: { server, redirectUri: `http://127.0.0.1:${address.port}/cb` },
    async addProvider(over) {
      const created = await providers.create({
        name: over.name ?? over.slug,
        kind: 'oidc',
        preset: null,
        ...discovered,
        emailsEndpoint: null,
        ...upstreamProviderSettings(upstream, SECRET_ENV),
        ...over,
      });
      if (!created) throw new Error(`provider ${over.slug} exists`);
      return created;
    },
    async close() {
      await chromium.close();
      await new Promise((resolve) => server.close(resolve));
      await t.close();
      await upstream.close();
    },
  };
}

/** The body text of the page (for the messages the user reads). */
export const pageText = (page: Page): Promise<string> => page.evaluate<string>('document.body.innerText');
