// `gatehouse protect`: a reverse proxy in front of any HTTP API or MCP server, built on the resource-server
// kit (docs/protect.md). For each request: the RFC 9728 metadata document is served here; anything else is
// checked with verifyRequest (token, revocation, DPoP, the route's scopes and acr) and refused with the kit's
// challenge, or forwarded with the verified identity in `gatehouse-*` headers and its response streamed back
// untouched. Everything it needs from Gatehouse comes over HTTP: the JWKS, the resource server's registered
// routes, and the revocation feed (polled every 500 ms) — no database.
import { Agent, createServer, request as httpRequest, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { pipeline } from 'node:stream';
import type { Logger } from 'pino';
import {
  isAmbiguous,
  parseRoute,
  remoteKeySource,
  requestTarget,
  resourceServer,
  revocationFollower,
  type Refusal,
  type RouteRule,
} from '@gatehouse/resource-server';
import { clientResponseHeaders, upstreamRequestHeaders } from './forwarding.js';
import { protectMetrics } from './metrics.js';
import type { ProtectOptions } from './options.js';

export interface RunningProxy {
  /** http://host:port of the proxied listener, and of the operations listener (health, readiness, metrics). */
  url: string;
  opsUrl: string;
  /** Stops accepting, lets requests in flight finish within the shutdown grace, then closes everything. */
  close(): Promise<void>;
}

interface Configuration {
  resource: string;
  routes: string[];
  scopes_supported: string[];
  access_token_ttl: number;
}

const JSON_TYPE = 'application/json; charset=utf-8';

function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': JSON_TYPE, 'content-length': Buffer.byteLength(text), 'cache-control': 'no-store', ...headers });
  res.end(text);
}

function refusalBody(refusal: Refusal): Record<string, string> {
  if (refusal.status === 503) return { error: 'temporarily_unavailable', error_description: refusal.description };
  return { error: refusal.error ?? 'unauthorized', error_description: refusal.description };
}

export async function startProtect(options: ProtectOptions, log: Logger): Promise<RunningProxy> {
  const basic = `Basic ${Buffer.from(`${encodeURIComponent(options.clientId)}:${encodeURIComponent(options.clientSecret)}`).toString('base64')}`;

  // The registration: routes (unless --route), scopes, lifetime; re-read every minute, the last one kept on failure.
  let configuration: Configuration | undefined;
  let configurationError: unknown;
  async function loadConfiguration(): Promise<void> {
    const response = await fetch(`${options.issuer}/resource-server/configuration`, {
      headers: { authorization: basic, accept: 'application/json' },
      redirect: 'error',
      signal: AbortSignal.timeout(5000),
    });
    if (!response.ok) throw new Error(`${options.issuer}/resource-server/configuration answered ${response.status}`);
    const read = (await response.json()) as Configuration;
    if (read.resource !== options.resource) throw new Error(`GATEHOUSE_CLIENT_ID belongs to the resource server ${read.resource}, not ${options.resource}`);
    const rules = read.routes.map(parseRoute);
    configuration = read;
    registeredRoutes = rules;
  }
  let registeredRoutes: RouteRule[] = [];

  const revocations = revocationFollower({
    issuer: options.issuer,
    clientId: options.clientId,
    clientSecret: options.clientSecret,
    intervalMs: options.revocationPollMs,
    maxStaleMs: options.offlineGraceMs,
    onError: (error) => log.warn({ err: (error as Error).message }, 'revocation feed unreachable'),
    onMalformed: (message, detail) => log.warn(detail, message),
    onOverflow: (max) => log.warn({ max_entries: max }, 'revocation list over its bound: requests are refused with 503 until entries expire'),
    // An entry with an unreadable exp is kept as long as the longest token this proxy accepts.
    maxEntryLifetimeMs: 24 * 3600_000,
  });
  // The JWKS is re-read every minute while Gatehouse answers and used up to the offline grace (at least five
  // minutes, what a key rotation leaves) when it does not.
  const keySource = remoteKeySource(`${options.issuer}/.well-known/jwks.json`, { maxAgeMs: Math.max(options.offlineGraceMs, 300_000), cooldownMs: 10_000 });
  const server = resourceServer({
    issuer: options.issuer,
    resource: options.resource,
    keySource,
    routes: () => options.routes ?? registeredRoutes,
    revocations,
    ...(options.publicUrl ? { publicBaseUrl: options.publicUrl } : {}),
    maxTokenAgeSeconds: 24 * 3600,
    metadata: { resourceName: options.resource },
  });

  const metrics = protectMetrics(() => revocations.age() / 1000);
  // The upstream's base path, once: every forwarded path is appended to it.
  const upstreamBase = options.upstream.pathname.replace(/\/$/, '');
  const agent = new Agent({ keepAlive: true, maxSockets: options.upstreamConnections, maxFreeSockets: Math.min(options.upstreamConnections, 64) });
  let shuttingDown = false;

  try {
    await Promise.all([loadConfiguration(), revocations.ready, keySource.refresh?.()]);
  } catch (error) {
    configurationError = error;
    log.warn({ err: (error as Error).message }, 'Gatehouse not reachable at start; requests are refused with 503 until it is');
  }
  const refresher = setInterval(() => {
    loadConfiguration().then(
      () => {
        configurationError = undefined;
      },
      (error: unknown) => {
        configurationError = error;
        log.warn({ err: (error as Error).message }, 'resource server configuration not readable');
      },
    );
    keySource.refresh?.().catch((error: unknown) => log.warn({ err: (error as Error).message }, 'JWKS not readable'));
  }, 60_000);
  refresher.unref();

  const ready = () => !shuttingDown && configuration !== undefined && revocations.usable();

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const method = req.method ?? 'GET';
    // Parsed once, here: the path the rules are matched against is the path forwarded (docs/protect.md, "Route
    // matching"); a path upstreams would read differently is refused before anything else.
    const target = requestTarget(req.url ?? '/');
    if (isAmbiguous(target)) {
      metrics.requests.inc({ outcome: 'refused' });
      metrics.refusals.inc({ reason: 'ambiguous_path' });
      log.info({ method, status: 400, reason: 'ambiguous_path' }, 'refused');
      req.resume();
      return sendJson(res, 400, { error: 'invalid_request', error_description: target.description });
    }
    const path = target.path;
    if (path === server.metadataPath && (method === 'GET' || method === 'HEAD')) {
      metrics.requests.inc({ outcome: 'metadata' });
      const body = { ...server.metadata(), ...(configuration ? { scopes_supported: configuration.scopes_supported } : {}) };
      return sendJson(res, 200, body, { 'cache-control': 'public, max-age=300', 'access-control-allow-origin': '*' });
    }
    const declared = Number(req.headers['content-length'] ?? 0);
    if (Number.isFinite(declared) && declared > options.maxBodyBytes) {
      metrics.requests.inc({ outcome: 'too_large' });
      return sendJson(
        res,
        413,
        { error: 'invalid_request', error_description: `The request body exceeds ${options.maxBodyBytes} bytes.` },
        { connection: 'close' },
      );
    }
    // Routes from the registration are not known yet: nothing can be decided, so nothing passes.
    const result =
      configuration === undefined && options.routes === undefined
        ? ({
            ok: false,
            status: 503,
            reason: 'configuration_unavailable',
            description: 'The resource server configuration is not available yet.',
            headers: { 'retry-after': '5' },
          } as Refusal)
        : await server.verifyRequest({ method, url: req.url ?? '/', target, headers: req.headers });
    if (!result.ok) {
      metrics.requests.inc({ outcome: 'refused' });
      metrics.refusals.inc({ reason: result.reason });
      log.info({ method, path, status: result.status, reason: result.reason }, 'refused');
      req.resume();
      return sendJson(res, result.status, refusalBody(result), result.headers);
    }
    forward(req, res, method, path + target.search, result.identity);
  }

  function forward(req: IncomingMessage, res: ServerResponse, method: string, target: string, identity: Parameters<typeof upstreamRequestHeaders>[1]): void {
    const started = process.hrtime.bigint();
    const headers = upstreamRequestHeaders(req.headers, identity, {
      passToken: options.passToken,
      remoteAddress: req.socket.remoteAddress,
      host: req.headers.host,
      proto: 'http',
    });
    const upstreamPath = `${upstreamBase}${target}`;
    const outgoing = httpRequest({
      agent,
      protocol: options.upstream.protocol,
      hostname: options.upstream.hostname,
      port: options.upstream.port || 80,
      method,
      path: upstreamPath,
      headers,
    });
    let received = 0;
    // Time to the upstream's response headers; once they came, a quiet stream (SSE) may idle as long as it likes.
    outgoing.setTimeout(options.upstreamTimeoutMs, () => outgoing.destroy(Object.assign(new Error('upstream timeout'), { code: 'UPSTREAM_TIMEOUT' })));
    outgoing.on('response', (upstream) => {
      outgoing.setTimeout(0);
      metrics.upstreamSeconds.observe(Number(process.hrtime.bigint() - started) / 1e9);
      metrics.requests.inc({ outcome: 'forwarded' });
      res.writeHead(upstream.statusCode ?? 502, upstream.statusMessage, clientResponseHeaders(upstream.headers));
      // Headers now, not with the first body chunk: an event stream's client learns at once that it is open.
      res.flushHeaders();
      pipeline(upstream, res, (error) => {
        if (error) log.debug({ err: error.message, path: target.split('?')[0] }, 'response stream ended early');
      });
    });
    outgoing.on('error', (error: Error & { code?: string }) => {
      const timeout = error.code === 'UPSTREAM_TIMEOUT';
      metrics.requests.inc({ outcome: 'upstream_error' });
      log.warn({ err: error.message, method, path: target.split('?')[0] }, 'upstream failed');
      if (!res.headersSent)
        sendJson(res, timeout ? 504 : 502, {
          error: 'temporarily_unavailable',
          error_description: timeout ? 'The service did not answer in time.' : 'The service is unreachable.',
        });
      else res.destroy();
    });
    // Client went away: stop the upstream work too.
    res.on('close', () => {
      if (!res.writableFinished) outgoing.destroy();
    });
    req.on('data', (chunk: Buffer) => {
      received += chunk.length;
      if (received > options.maxBodyBytes) {
        metrics.requests.inc({ outcome: 'too_large' });
        outgoing.destroy();
        req.unpipe(outgoing);
        sendJson(res, 413, { error: 'invalid_request', error_description: `The request body exceeds ${options.maxBodyBytes} bytes.` }, { connection: 'close' });
        req.destroy();
      }
    });
    req.pipe(outgoing);
  }

  const proxy: Server = createServer(
    { maxHeaderSize: options.maxHeaderBytes, requestTimeout: 300_000, headersTimeout: 30_000, keepAliveTimeout: 5_000 },
    (req, res) => {
      handle(req, res).catch((error: unknown) => {
        log.error({ err: (error as Error).message }, 'request failed');
        sendJson(res, 500, { error: 'server_error', error_description: 'The proxy failed on this request.' });
      });
    },
  );
  proxy.maxConnections = options.maxConnections;
  proxy.on('clientError', (error: Error & { code?: string }, socket: Socket) => {
    if (!socket.writable) return socket.destroy();
    const status = error.code === 'HPE_HEADER_OVERFLOW' ? '431 Request Header Fields Too Large' : '400 Bad Request';
    socket.end(`HTTP/1.1 ${status}\r\nconnection: close\r\ncontent-length: 0\r\n\r\n`);
  });

  const ops: Server = createServer(async (req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    if (path === '/healthz') return sendJson(res, 200, { status: 'ok' });
    if (path === '/readyz') {
      const body = {
        status: ready() ? 'ready' : 'not_ready',
        configuration: configuration !== undefined && configurationError === undefined,
        revocation_list_age_ms: Number.isFinite(revocations.age()) ? Math.round(revocations.age()) : null,
        shutting_down: shuttingDown,
      };
      return sendJson(res, ready() ? 200 : 503, body);
    }
    if (path === '/metrics') {
      const text = await metrics.registry.metrics();
      res.writeHead(200, { 'content-type': metrics.registry.contentType });
      return res.end(text);
    }
    sendJson(res, 404, { error: 'not_found' });
  });

  const listen = (s: Server, host: string, port: number) =>
    new Promise<AddressInfo>((resolve, reject) => {
      s.once('error', reject);
      s.listen(port, host, () => resolve(s.address() as AddressInfo));
    });
  const proxyAddress = await listen(proxy, options.listen.host, options.listen.port);
  const opsAddress = await listen(ops, options.opsListen.host, options.opsListen.port);
  const urlOf = (a: AddressInfo) => `http://${a.family === 'IPv6' ? `[${a.address}]` : a.address}:${a.port}`;

  return {
    url: urlOf(proxyAddress),
    opsUrl: urlOf(opsAddress),
    async close() {
      shuttingDown = true;
      clearInterval(refresher);
      revocations.stop();
      const closed = new Promise<void>((resolve) => proxy.close(() => resolve()));
      proxy.closeIdleConnections();
      const grace = new Promise<void>((resolve) => setTimeout(resolve, options.shutdownGraceMs).unref());
      await Promise.race([closed, grace]);
      proxy.closeAllConnections();
      agent.destroy();
      await new Promise<void>((resolve) => ops.close(() => resolve()));
      ops.closeAllConnections();
    },
  };
}
