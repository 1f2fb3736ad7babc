// End to end: an MCP server built with the official SDK (@modelcontextprotocol/sdk) behind `gatehouse protect`.
// The SDK's client knows only the server's URL: it finds Gatehouse from the proxy's 401 (resource_metadata,
// RFC 9728), the user signs in in Chromium, the client redeems the code (PKCE, resource indicator) and calls a
// tool through the proxy. Then what must be refused is: a token for another resource, a missing scope, a
// DPoP-bound token without its proof, a revoked token (within 1 s), spoofed identity headers.
import { after, before, test } from 'node:test';
import { randomUUID } from 'node:crypto';
import assert from 'node:assert/strict';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { pino } from 'pino';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { UnauthorizedError, type OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import type { OAuthClientInformationMixed, OAuthClientMetadata, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import { launchChromium, startClientPage, type ChromiumProfile } from '../helpers/chromium.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { createClient } from '../helpers/oauth-fixtures.js';
import { createUser, PASSWORD, SIGN_IN } from '../helpers/users.js';
import { dpopKey, dpopProof, serverNonce } from '../helpers/dpop.js';
import { executeCommand } from '../../src/cli/execute.js';
import { freePort } from '../../scripts/pg-cluster.mjs';
import { parseProtectArgs } from '../../src/protect/options.js';
import { startProtect, type RunningProxy } from '../../src/protect/proxy.js';
import type { User } from '../../src/storage/repositories/users-repository.js';

let gatehouse: TestApp;
let mcpUpstream: Server;
let proxy: RunningProxy;
let chromium: ChromiumProfile;
let callback: Awaited<ReturnType<typeof startClientPage>>;
let user: User;
let clientId: string;
let resource: string;
let mcpUrl: URL;
const upstreamSaw: IncomingHttpHeaders[] = [];

/** The MCP server: stateless Streamable HTTP, one tool that says who the proxy vouched for. */
async function startMcpServer(): Promise<string> {
  mcpUpstream = createServer(async (req, res) => {
    upstreamSaw.push(req.headers);
    const server = new McpServer({ name: 'notes', version: '1.0.0' });
    server.registerTool('whoami', { description: 'Who is calling, as gatehouse protect vouched' }, async () => ({
      content: [{ type: 'text', text: `${req.headers['gatehouse-subject']} via ${req.headers['gatehouse-client']} (${req.headers['gatehouse-scope']})` }],
    }));
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    res.on('close', () => {
      void transport.close();
      void server.close();
    });
    await server.connect(transport);
    await transport.handleRequest(req, res);
  });
  await new Promise<void>((resolve) => mcpUpstream.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(mcpUpstream.address() as AddressInfo).port}`;
}

/** The MCP client's OAuth state: a registered public client, PKCE, and the authorization URL it was sent to. */
class TestProvider implements OAuthClientProvider {
  authorizationUrl: URL | undefined;
  saved: OAuthTokens | undefined;
  private verifier = '';
  get redirectUrl() {
    return callback.redirectUri;
  }
  get clientMetadata(): OAuthClientMetadata {
    return { client_name: 'MCP test client', redirect_uris: [callback.redirectUri], token_endpoint_auth_method: 'none', grant_types: ['authorization_code'] };
  }
  /** Gatehouse requires state; the SDK sends it when the provider makes one. */
  state() {
    return randomUUID();
  }
  clientInformation(): OAuthClientInformationMixed {
    return { client_id: clientId };
  }
  tokens() {
    return this.saved;
  }
  saveTokens(tokens: OAuthTokens) {
    this.saved = tokens;
  }
  redirectToAuthorization(url: URL) {
    this.authorizationUrl = url;
  }
  saveCodeVerifier(verifier: string) {
    this.verifier = verifier;
  }
  codeVerifier() {
    return this.verifier;
  }
}

before(async () => {
  gatehouse = await startTestApp();
  const upstreamUrl = await startMcpServer();
  callback = await startClientPage();
  const port = await freePort();
  resource = `http://127.0.0.1:${port}/mcp`;
  mcpUrl = new URL(resource);
  const creds = (await executeCommand(
    [
      'resource-servers',
      'create',
      '--identifier',
      resource,
      '--name',
      'Notes MCP',
      '--scope',
      'notes:read=Read your notes notes:write=Change your notes',
      '--route',
      '* /mcp*=notes:read',
      '--route',
      '* /mcp/admin*=notes:write',
    ],
    gatehouse.core,
  )) as { client_id: string; client_secret: string };
  clientId = (
    await createClient(gatehouse.core.db, gatehouse.core.clock, {
      redirectUris: [callback.redirectUri],
      grantTypes: ['authorization_code', 'refresh_token'],
      // The SDK asks for the scopes the metadata document lists.
      scopes: ['openid', 'notes:read', 'notes:write'],
    })
  ).client.id;
  user = await createUser(gatehouse.core.db, gatehouse.core.clock, SIGN_IN);
  const options = parseProtectArgs(
    ['--resource', resource, '--upstream', upstreamUrl, '--issuer', gatehouse.url, '--listen', `127.0.0.1:${port}`, '--ops-listen', '127.0.0.1:0'],
    { GATEHOUSE_CLIENT_ID: creds.client_id, GATEHOUSE_CLIENT_SECRET: creds.client_secret },
  );
  proxy = await startProtect(options, pino({ level: 'silent' }));
  chromium = await launchChromium();
});

after(async () => {
  await chromium?.close();
  await proxy?.close();
  await new Promise((resolve) => mcpUpstream.close(resolve));
  await new Promise((resolve) => callback.server.close(resolve));
  await gatehouse.close();
});

const provider = new TestProvider();

test('an MCP SDK client finds Gatehouse from the proxy’s 401, the user signs in in Chromium, and the client calls a tool', async () => {
  const first = new StreamableHTTPClientTransport(mcpUrl, { authProvider: provider });
  await assert.rejects(new Client({ name: 'test', version: '1.0.0' }).connect(first), UnauthorizedError);
  const authorizationUrl = provider.authorizationUrl!;
  assert.equal(authorizationUrl.origin, gatehouse.url, 'discovered from resource_metadata → authorization_servers');
  assert.equal(authorizationUrl.searchParams.get('resource'), resource);

  const page = await chromium.context.newPage();
  try {
    await page.goto(authorizationUrl.href);
    await page.fill('input[name="username"]', user.username);
    await page.fill('input[name="password"]', PASSWORD);
    await page.click('button[type="submit"]');
    await page.waitForURL((url) => url.href.startsWith(callback.redirectUri));
    const code = new URL(page.url()).searchParams.get('code');
    assert.ok(code, 'the browser came back with a code');
    await first.finishAuth(code);
  } finally {
    await page.close();
  }

  const client = new Client({ name: 'test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(mcpUrl, { authProvider: provider }));
  const result = (await client.callTool({ name: 'whoami' })) as { content: { type: string; text: string }[] };
  assert.equal(result.content[0]!.text, `${user.id} via ${clientId} (notes:read notes:write)`);
  await client.close();
});

const mcpInitialize = (headers: Record<string, string>) =>
  fetch(mcpUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
    }),
  });

test('the MCP response stream (text/event-stream) passes through, and spoofed identity headers never reach the server', async () => {
  const token = provider.saved!.access_token;
  upstreamSaw.length = 0;
  const response = await mcpInitialize({ authorization: `Bearer ${token}`, 'gatehouse-subject': 'admin', 'gatehouse-act': '{"sub":"root"}' });
  assert.equal(response.status, 200);
  assert.equal(response.headers.get('content-type'), 'text/event-stream');
  assert.match(await response.text(), /^event: message\ndata: .*"serverInfo"/m);
  assert.equal(upstreamSaw.length, 1);
  assert.equal(upstreamSaw[0]!['gatehouse-subject'], user.id);
  assert.equal(upstreamSaw[0]!['gatehouse-act'], undefined);
});

test('refused before the MCP server: a token for another resource, a missing scope, a DPoP-bound token without its proof', async () => {
  upstreamSaw.length = 0;
  const service = await createClient(gatehouse.core.db, gatehouse.core.clock, {
    type: 'confidential',
    grantTypes: ['client_credentials'],
    scopes: ['notes:read', 'users:read'],
  });
  const basic = `Basic ${Buffer.from(`${service.client.id}:${service.secret}`).toString('base64')}`;
  const token = async (scope: string, audience: string, dpop?: string) => {
    const response = await fetch(`${gatehouse.url}/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: basic, ...(dpop ? { dpop } : {}) },
      body: new URLSearchParams({ grant_type: 'client_credentials', scope, resource: audience }),
    });
    return ((await response.json()) as { access_token: string }).access_token;
  };
  const otherResource = await mcpInitialize({ authorization: `Bearer ${await token('users:read', gatehouse.config.API_AUDIENCE)}` });
  assert.equal(otherResource.status, 401);
  assert.match(otherResource.headers.get('www-authenticate') ?? '', /error="invalid_token"/);

  const scope = await fetch(new URL('/mcp/admin', mcpUrl), { method: 'POST', headers: { authorization: `Bearer ${await token('notes:read', resource)}` } });
  assert.equal(scope.status, 403);
  assert.match(scope.headers.get('www-authenticate') ?? '', /insufficient_scope.*scope="notes:write"/);

  const key = await dpopKey();
  const tokenUrl = `${gatehouse.url}/token`;
  const bound = await token('notes:read', resource, await dpopProof(key, tokenUrl, { nonce: await serverNonce(tokenUrl) }));
  const noProof = await mcpInitialize({ authorization: `DPoP ${bound}` });
  assert.equal(noProof.status, 401);
  assert.match(noProof.headers.get('www-authenticate') ?? '', /^DPoP .*error="invalid_dpop_proof"/);
  assert.equal(upstreamSaw.length, 0, 'the MCP server saw none of them');
});

test('a revoked token is refused by the proxy within 1 s', async () => {
  const token = provider.saved!.access_token;
  assert.equal((await mcpInitialize({ authorization: `Bearer ${token}` })).status, 200);
  const revoke = await fetch(`${gatehouse.url}/revoke`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ token, client_id: clientId }),
  });
  assert.equal(revoke.status, 200);
  const deadline = Date.now() + 1000;
  let status = 200;
  while (status === 200 && Date.now() < deadline) {
    status = (await mcpInitialize({ authorization: `Bearer ${token}` })).status;
    if (status === 200) await new Promise((resolve) => setTimeout(resolve, 50));
  }
  assert.equal(status, 401);
});
