// The official MCP TypeScript SDK client (@modelcontextprotocol/sdk) against an MCP server protected by
// Gatehouse, with a person signing in and consenting in Chromium (docs/agents.md). The MCP server is the SDK's
// own (Streamable HTTP, stateless), started here behind a guard of a few lines: tokens verified with jose
// against Gatehouse's JWKS (issuer, audience = the server's identifier, typ at+jwt, scope mcp:tools), 401 with
// `WWW-Authenticate: Bearer resource_metadata=…` otherwise, and its RFC 9728 document naming Gatehouse.
// The SDK client discovers everything from that 401 and identifies itself once through a Client ID Metadata
// Document (hosted here on https, test/helpers/metadata-document-server.ts) and once through open registration.
// A token for another resource is refused by the MCP server.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createRemoteJWKSet, jwtVerify, type JWTPayload } from 'jose';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { UnauthorizedError, type OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { OAuthClientInformationMixed, OAuthClientMetadata, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import type { Browser } from 'playwright-core';
import { executeCommand } from '../../src/cli/execute.js';
import { JWKS_PATH } from '../../src/oauth/jwks.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { launchBrowser, typeInto } from '../helpers/chromium.js';
import { NO_LIMITS } from '../helpers/env.js';
import { startMetadataDocumentServer, TEST_TLS_OUTBOUND, type MetadataDocumentServer } from '../helpers/metadata-document-server.js';
import { createUser, PASSWORD, SIGN_IN } from '../helpers/users.js';
import { basicAuth, postForm } from '../oauth/fixtures.js';
import { freePort } from '../../scripts/pg-cluster.mjs';

const SCOPE = 'mcp:tools';

/** The MCP server: RFC 9728 metadata, the bearer guard, and one tool answering who the token is for. */
async function startMcpServer(gatehouse: string): Promise<{ url: string; resource: string; close(): Promise<void> }> {
  const jwks = createRemoteJWKSet(new URL(JWKS_PATH, gatehouse));
  let base = '';
  const resource = () => `${base}/mcp`;
  const metadataUrl = () => `${base}/.well-known/oauth-protected-resource/mcp`;

  async function guard(req: IncomingMessage, res: ServerResponse): Promise<JWTPayload | undefined> {
    const presented = /^Bearer ([\w.~+/-]+=*)$/.exec(req.headers.authorization ?? '')?.[1];
    const challenge = (extra = '') => `Bearer resource_metadata="${metadataUrl()}"${extra}`;
    if (!presented) return void res.writeHead(401, { 'www-authenticate': challenge() }).end();
    try {
      const { payload } = await jwtVerify(presented, jwks, { issuer: gatehouse, audience: resource(), typ: 'at+jwt' });
      if (
        !String(payload.scope ?? '')
          .split(' ')
          .includes(SCOPE)
      ) {
        return void res.writeHead(403, { 'www-authenticate': challenge(`, error="insufficient_scope", scope="${SCOPE}"`) }).end();
      }
      return payload;
    } catch {
      return void res.writeHead(401, { 'www-authenticate': challenge(', error="invalid_token"') }).end();
    }
  }

  const server: Server = createServer(async (req, res) => {
    const path = new URL(req.url ?? '/', base).pathname;
    if (path === '/.well-known/oauth-protected-resource/mcp') {
      const document = { resource: resource(), authorization_servers: [gatehouse], scopes_supported: [SCOPE], bearer_methods_supported: ['header'] };
      return void res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(document));
    }
    if (path !== '/mcp') return void res.writeHead(404).end();
    const claims = await guard(req, res);
    if (!claims) return;
    const mcp = new McpServer({ name: 'notes-mcp', version: '1.0.0' });
    mcp.registerTool('whoami', { description: 'Who the access token was issued to' }, async () => ({
      content: [{ type: 'text', text: JSON.stringify({ sub: claims.sub, client_id: claims.client_id }) }],
    }));
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    res.on('close', () => {
      void transport.close();
      void mcp.close();
    });
    await mcp.connect(transport);
    await transport.handleRequest(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url: resource(),
    resource: resource(),
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

/** Where the browser lands after consent: the code, as a native MCP client's loopback listener receives it. */
async function startCallback(): Promise<{ url: string; next(): Promise<URL>; close(): Promise<void> }> {
  let arrived: (url: URL) => void = () => {};
  const server = createServer((req, res) => {
    arrived(new URL(req.url ?? '/', 'http://127.0.0.1'));
    res.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><title>Connected</title><h1>Connected</h1>');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/callback`,
    next: () => new Promise((resolve) => (arrived = resolve)),
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

/** The SDK's OAuthClientProvider, in memory; `clientMetadataUrl` set means CIMD. */
class MemoryProvider implements OAuthClientProvider {
  information: OAuthClientInformationMixed | undefined;
  saved: OAuthTokens | undefined;
  verifier = '';
  authorizationUrl: URL | undefined;
  constructor(
    readonly redirectUrl: string,
    readonly clientMetadataUrl?: string,
  ) {}
  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: 'Test MCP agent',
      redirect_uris: [this.redirectUrl],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    };
  }
  state = () => 'mcp-state';
  clientInformation = () => this.information;
  saveClientInformation = (information: OAuthClientInformationMixed) => void (this.information = information);
  tokens = () => this.saved;
  saveTokens = (tokens: OAuthTokens) => void (this.saved = tokens);
  redirectToAuthorization = (url: URL) => void (this.authorizationUrl = url);
  saveCodeVerifier = (verifier: string) => void (this.verifier = verifier);
  codeVerifier = () => this.verifier;
}

describe('the MCP TypeScript SDK client connects to an MCP server protected by Gatehouse', () => {
  let t: TestApp;
  let mcp: Awaited<ReturnType<typeof startMcpServer>>;
  let callback: Awaited<ReturnType<typeof startCallback>>;
  let documents: MetadataDocumentServer;
  let browser: Browser | undefined;
  let username: string;

  before(async () => {
    documents = await startMetadataDocumentServer();
    callback = await startCallback();
    // The MCP server's identifier is known once it listens; Gatehouse's OPEN_CLIENT_RESOURCES must name it.
    const port = await freePort();
    mcp = await startMcpServer(`http://127.0.0.1:${port}`);
    t = await startTestApp({
      env: { ...NO_LIMITS, PORT: String(port), REGISTRATION: 'open', OPEN_CLIENT_SCOPES: `openid ${SCOPE}`, OPEN_CLIENT_RESOURCES: mcp.resource },
      outbound: TEST_TLS_OUTBOUND,
    });
    await executeCommand(
      ['resource-servers', 'create', '--identifier', mcp.resource, '--name', 'Notes MCP', '--scope', `${SCOPE}=Use the notes tools`],
      t.core,
    );
    username = (await createUser(t.core.db, t.core.clock, SIGN_IN)).username;
    browser = await launchBrowser();
  });
  after(async () => {
    await browser?.close();
    await t?.close();
    await mcp?.close();
    await callback?.close();
    await documents?.close();
  });

  /** Connect (401 → discovery → CIMD or registration → authorize), consent in Chromium, finish, call the tool. */
  async function connectAndCall(provider: MemoryProvider): Promise<{ consent: string; result: Record<string, unknown> }> {
    await assert.rejects(
      new Client({ name: 'agent', version: '1.0.0' }).connect(new StreamableHTTPClientTransport(new URL(mcp.url), { authProvider: provider })),
      UnauthorizedError,
    );
    assert.ok(provider.authorizationUrl, 'the SDK asked for the user to be sent to Gatehouse');
    assert.equal(provider.authorizationUrl.origin, t.url);
    assert.equal(provider.authorizationUrl.searchParams.get('resource'), mcp.resource);
    const page = await (await browser!.newContext()).newPage();
    const landed = callback.next();
    await page.goto(provider.authorizationUrl.href);
    await typeInto(page, 'Username', username);
    await typeInto(page, 'Password', PASSWORD, true);
    await page.waitForSelector('h1:text("Allow access?")');
    const consent = (await page.textContent('main'))!;
    await page.getByRole('button', { name: 'Allow' }).press('Enter');
    const back = await landed;
    await page.context().close();
    assert.equal(back.searchParams.get('state'), 'mcp-state');
    const transport = new StreamableHTTPClientTransport(new URL(mcp.url), { authProvider: provider });
    await transport.finishAuth(back.searchParams.get('code')!);
    const client = new Client({ name: 'agent', version: '1.0.0' });
    await client.connect(transport);
    const called = await client.callTool({ name: 'whoami', arguments: {} });
    await client.close();
    const text = (called.content as { type: string; text: string }[])[0]!.text;
    return { consent, result: JSON.parse(text) as Record<string, unknown> };
  }

  test('through a Client ID Metadata Document: the SDK uses its https URL as client_id, the user consents to a client named by its host, and the tool call succeeds', async () => {
    const documentUrl = documents.publish('/mcp-client.json', { body: null }, 'agent.client.test');
    const provider = new MemoryProvider(callback.url, documentUrl);
    documents.publish('/mcp-client.json', { body: { client_id: documentUrl, ...provider.clientMetadata } }, 'agent.client.test');
    const { consent, result } = await connectAndCall(provider);
    assert.equal(provider.information?.client_id, documentUrl);
    assert.match(consent, /agent\.client\.test:\d+/);
    assert.match(consent, /not registered with this server/);
    assert.equal(result.client_id, documentUrl);
    assert.ok(documents.fetches('/mcp-client.json') >= 1);
  });

  test('through open registration: the SDK registers itself without a token, the user consents to a self-registered client, and the tool call succeeds', async () => {
    const provider = new MemoryProvider(callback.url);
    const { consent, result } = await connectAndCall(provider);
    const clientId = String(provider.information?.client_id);
    assert.ok(!clientId.startsWith('https://'));
    assert.match(consent, /registered itself/);
    assert.equal(result.client_id, clientId);
    const row = await t.core.db.selectFrom('clients').select(['provenance', 'token_endpoint_auth_method']).where('id', '=', clientId).executeTakeFirstOrThrow();
    assert.deepEqual(row, { provenance: 'self_registered', token_endpoint_auth_method: 'none' });
  });

  test('a Gatehouse token for another resource is refused by the MCP server with a challenge naming its metadata', async () => {
    const service = (await executeCommand(
      ['clients', 'create', '--name', 'svc', '--type', 'confidential', '--grant-types', 'client_credentials', '--scope', 'orders:read'],
      t.core,
    )) as Record<string, string>;
    const token = await postForm(
      `${t.url}/token`,
      { grant_type: 'client_credentials', scope: 'orders:read' },
      { authorization: basicAuth(service.client_id!, service.client_secret!) },
    );
    assert.equal(token.status, 200, token.text);
    const response = await fetch(mcp.url, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${String(token.body.access_token)}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    assert.equal(response.status, 401);
    assert.match(
      response.headers.get('www-authenticate') ?? '',
      /resource_metadata="[^"]+\/\.well-known\/oauth-protected-resource\/mcp", error="invalid_token"/,
    );
  });
});
