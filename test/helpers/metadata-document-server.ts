// An https server on loopback that publishes Client ID Metadata Documents (docs/agents.md) for tests, with the
// test certificate in test/helpers/tls/ (self-signed, for localhost, client.test and *.client.test). The app
// under test reaches it through TEST_TLS_OUTBOUND: loopback allowed (as every test's local server), https
// only, that certificate trusted, and *.client.test resolved to 127.0.0.1 — except names starting with
// `private.` (10.1.2.3) and `metadata.` (169.254.169.254), for the address rules. No name reaches real DNS.
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { STRICT_OUTBOUND, type OutboundPolicy } from '../../src/http/outbound/outbound-policy.js';

const tlsFile = (name: string) => readFileSync(new URL(`./tls/${name}`, import.meta.url), 'utf8');
export const TEST_CERT = tlsFile('localhost-cert.pem');
const TEST_KEY = tlsFile('localhost-key.pem');

export const TEST_TLS_OUTBOUND: OutboundPolicy = {
  ...STRICT_OUTBOUND,
  allowedClasses: ['loopback'],
  ca: TEST_CERT,
  resolve: async (hostname) => {
    if (hostname.startsWith('private.')) return [{ address: '10.1.2.3', family: 4 }];
    if (hostname.startsWith('metadata.')) return [{ address: '169.254.169.254', family: 4 }];
    if (hostname === 'client.test' || hostname.endsWith('.client.test') || hostname === 'localhost') return [{ address: '127.0.0.1', family: 4 }];
    throw new Error(`${hostname} does not resolve in tests`);
  },
};

export interface PublishedDocument {
  /** The JSON body (an object is serialised), or raw text. */
  body: unknown;
  headers?: Record<string, string>;
  /** Never answers (the fetch deadline is what ends it). */
  hang?: boolean;
}

export interface MetadataDocumentServer {
  /** https://client.test:PORT — documents are published under it. */
  readonly origin: string;
  readonly port: number;
  /** Publishes a document at `path`; returns its URL (under `host`, default client.test). */
  publish(path: string, document: PublishedDocument, host?: string): string;
  /** How many times `path` was fetched. */
  fetches(path: string): number;
  close(): Promise<void>;
}

export async function startMetadataDocumentServer(): Promise<MetadataDocumentServer> {
  const documents = new Map<string, PublishedDocument>();
  const counts = new Map<string, number>();
  const hanging = new Set<ServerResponse>();
  const server: Server = createServer({ cert: TEST_CERT, key: TEST_KEY }, (req, res) => {
    const path = new URL(req.url ?? '/', 'https://x').pathname;
    counts.set(path, (counts.get(path) ?? 0) + 1);
    const document = documents.get(path);
    if (!document) return void res.writeHead(404).end();
    if (document.hang) return void hanging.add(res);
    const body = typeof document.body === 'string' ? document.body : JSON.stringify(document.body);
    res.writeHead(200, { 'content-type': 'application/json', ...document.headers }).end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    origin: `https://client.test:${port}`,
    port,
    publish(path, document, host = 'client.test') {
      documents.set(path, document);
      return `https://${host}:${port}${path}`;
    },
    fetches: (path) => counts.get(path) ?? 0,
    async close() {
      for (const res of hanging) res.destroy();
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

/** A valid public client's document for `url`, with these redirect URIs. */
export const publicClientDocument = (url: string, redirectUris: string[], extra: Record<string, unknown> = {}) => ({
  client_id: url,
  client_name: 'Agent Example',
  redirect_uris: redirectUris,
  grant_types: ['authorization_code', 'refresh_token'],
  response_types: ['code'],
  token_endpoint_auth_method: 'none',
  ...extra,
});
