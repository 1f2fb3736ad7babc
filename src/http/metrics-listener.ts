// The Prometheus listener: `GET /metrics` on its own address (METRICS_HOST:METRICS_PORT, loopback by default),
// never on the main listener. Metrics name every route with its request counts and latencies and the process's
// memory and event-loop figures: a map of the service and of its load for anyone who can read them, so they are
// served where only the operator's scraper reaches (docs/security/tokens-and-operator-views.md). A plain
// node:http server: no routes, hooks or limits of the public app apply to it, and its scrapes are not counted.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Registry } from 'prom-client';

export interface MetricsListener {
  /** The port it listens on (the one asked for, or the one the system chose for 0). */
  port: number;
  close(): Promise<void>;
}

export async function startMetricsListener(
  registry: Registry,
  address: { host: string; port: number },
  onError: (error: unknown) => void = () => {},
): Promise<MetricsListener> {
  const server: Server = createServer((request, response) => {
    const path = (request.url ?? '').split('?')[0];
    if (path !== '/metrics') {
      response.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' }).end('Not found: metrics are at /metrics\n');
      return;
    }
    if (request.method !== 'GET' && request.method !== 'HEAD') {
      response.writeHead(405, { allow: 'GET, HEAD', 'content-type': 'text/plain; charset=utf-8' }).end('Method not allowed\n');
      return;
    }
    registry.metrics().then(
      (text) =>
        response.writeHead(200, { 'content-type': registry.contentType, 'cache-control': 'no-store' }).end(request.method === 'HEAD' ? undefined : text),
      (error: unknown) => {
        onError(error);
        response.writeHead(500, { 'content-type': 'text/plain; charset=utf-8' }).end('Metrics could not be collected\n');
      },
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen({ host: address.host, port: address.port, exclusive: true }, () => {
      server.off('error', reject);
      resolve();
    });
  });
  // A scraper keeps its connection open; closing must not wait for it.
  server.keepAliveTimeout = 5_000;
  return {
    port: (server.address() as AddressInfo).port,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
