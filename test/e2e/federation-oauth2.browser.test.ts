// A plain OAuth 2.0 upstream shaped like GitHub (no id_token: a user document and a /user/emails list), and
// an upstream that never answers, end to end in Chromium. Both upstreams are small real HTTP servers started
// here (docs/federation.md); the Gatehouse app is the federation world's.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Page } from 'playwright-core';
import { authorizeQuery } from '../interaction/browserless.js';
import { createClient } from '../helpers/oauth-fixtures.js';
import type { Client } from '../../src/storage/repositories/clients-repository.js';
import { pageText, SECRET_ENV, startFederationWorld, type FederationWorld } from './federation-world.js';

/** GitHub's shape: /login/oauth/authorize, /login/oauth/access_token, /user, /user/emails; /hang never answers. */
async function startGitHubLike(): Promise<{ server: Server; url: string; user: Record<string, unknown>; emails: unknown[]; hanging: ServerResponse[] }> {
  const state = { user: {} as Record<string, unknown>, emails: [] as unknown[], hanging: [] as ServerResponse[] };
  const json = (response: ServerResponse, status: number, body: unknown) => {
    response.writeHead(status, { 'content-type': 'application/json' });
    response.end(JSON.stringify(body));
  };
  const server = createServer((request: IncomingMessage, response: ServerResponse) => {
    const url = new URL(request.url ?? '/', 'http://upstream');
    if (url.pathname === '/login/oauth/authorize') {
      const back = new URL(url.searchParams.get('redirect_uri') ?? '');
      back.searchParams.set('code', 'github-code');
      back.searchParams.set('state', url.searchParams.get('state') ?? '');
      response.writeHead(302, { location: back.href });
      return response.end();
    }
    if (url.pathname === '/login/oauth/access_token')
      return json(response, 200, { access_token: 'gho_token', token_type: 'bearer', scope: 'read:user,user:email' });
    if (url.pathname === '/hang/access_token') return void state.hanging.push(response);
    const bearer = request.headers.authorization === 'Bearer gho_token';
    if (url.pathname === '/user') return bearer ? json(response, 200, state.user) : json(response, 401, { message: 'Bad credentials' });
    if (url.pathname === '/user/emails') return bearer ? json(response, 200, state.emails) : json(response, 401, { message: 'Bad credentials' });
    json(response, 404, { message: 'Not Found' });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return Object.assign(state, { server, url: `http://127.0.0.1:${port}` });
}

describe('a plain OAuth 2.0 upstream (GitHub-shaped) and an upstream that never answers, in a real browser', () => {
  let w: FederationWorld;
  let github: Awaited<ReturnType<typeof startGitHubLike>>;
  let client: Client;

  before(async () => {
    w = await startFederationWorld();
    github = await startGitHubLike();
    const oauth2 = {
      kind: 'oauth2' as const,
      issuer: null,
      // GitHub names no issuer in its authorization responses (RFC 9207 not supported).
      authorizationResponseIss: false,
      jwksUri: null,
      authorizationEndpoint: `${github.url}/login/oauth/authorize`,
      userinfoEndpoint: `${github.url}/user`,
      emailsEndpoint: `${github.url}/user/emails`,
      tokenEndpointAuthMethod: 'client_secret_post' as const,
      scopes: ['read:user', 'user:email'],
      claims: { sub: 'id', preferred_username: 'login', name: 'name' },
      clientId: 'github-client',
      clientSecretEnv: SECRET_ENV,
      provision: true,
    };
    await w.addProvider({ slug: 'github-like', name: 'GitHub', ...oauth2, tokenEndpoint: `${github.url}/login/oauth/access_token` });
    await w.addProvider({ slug: 'slow', name: 'Slow', ...oauth2, tokenEndpoint: `${github.url}/hang/access_token` });
    client = (await createClient(w.t.core.db, w.t.core.clock, { name: 'Shop', redirectUris: [w.clientPage.redirectUri] })).client;
  });
  after(async () => {
    for (const response of github?.hanging ?? []) response.destroy();
    await new Promise((resolve) => github?.server.close(resolve));
    await w?.close();
  });

  async function freshPage(): Promise<Page> {
    await w.chromium.context.clearCookies();
    const page = await w.chromium.context.newPage();
    await page.goto(w.t.url + authorizeQuery(client.id, w.clientPage.redirectUri, { scope: 'openid profile email' }));
    return page;
  }

  test('GitHub-shaped upstream: the numeric id is the subject, the primary e-mail of /user/emails is taken as GitHub verified it, and a JIT account is created and signed in', async () => {
    github.user = { id: 4242, login: 'octo', name: 'Octo Cat', email: 'public@example.org' };
    github.emails = [
      { email: 'other@example.org', primary: false, verified: true },
      { email: 'octo@example.org', primary: true, verified: true },
    ];
    const page = await freshPage();
    await page.click('text=Continue with GitHub');
    await page.waitForURL((url) => url.href.startsWith(w.clientPage.redirectUri));
    assert.match(new URL(page.url()).searchParams.get('code') ?? '', /^[A-Za-z0-9_-]{43,}$/);
    const provider = await w.t.core.db.selectFrom('identity_providers').select('id').where('slug', '=', 'github-like').executeTakeFirstOrThrow();
    const link = await w.t.core.db
      .selectFrom('federated_identities')
      .selectAll()
      .where('provider_id', '=', provider.id)
      .where('subject', '=', '4242')
      .executeTakeFirstOrThrow();
    const user = await w.t.core.db.selectFrom('users').selectAll().where('id', '=', link.user_id).executeTakeFirstOrThrow();
    assert.equal(user.email, 'octo@example.org');
    assert.equal(user.email_verified, true);
    assert.equal(user.name, 'Octo Cat');
    await page.close();
  });

  test('upstream timeout: a token endpoint that never answers ends, within the upstream time limit, in a page naming the provider (not a 500)', async () => {
    const page = await freshPage();
    const started = Date.now();
    const [response] = await Promise.all([
      page.waitForResponse((r) => r.url().includes('/federation/slow/callback'), { timeout: 30_000 }),
      page.click('text=Continue with Slow'),
    ]);
    assert.equal(response.status(), 502);
    assert.match(await pageText(page), /Slow is not answering/);
    assert.ok(Date.now() - started < 20_000, 'bounded by the upstream time limit');
    assert.ok(github.hanging.length > 0, 'the token request reached the upstream, which never answered');
    await page.close();
  });
});
