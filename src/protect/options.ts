// `gatehouse protect` command line → ProtectOptions. Secrets never come from argv (ps shows it): the resource
// server's credentials are GATEHOUSE_CLIENT_ID and GATEHOUSE_CLIENT_SECRET. docs/protect.md lists every flag.
import { parseArgs } from 'node:util';
import { parseRoute, RouteSyntaxError, type RouteRule } from '@gatehouse/resource-server';

export interface Address {
  host: string;
  port: number;
}

export interface ProtectOptions {
  resource: string;
  upstream: URL;
  issuer: string;
  listen: Address;
  opsListen: Address;
  /** From --route; undefined: the routes registered with the resource server. */
  routes: RouteRule[] | undefined;
  clientId: string;
  clientSecret: string;
  publicUrl: string | undefined;
  passToken: boolean;
  maxConnections: number;
  upstreamConnections: number;
  upstreamTimeoutMs: number;
  maxHeaderBytes: number;
  maxBodyBytes: number;
  revocationPollMs: number;
  offlineGraceMs: number;
  shutdownGraceMs: number;
  logLevel: string;
}

export class ProtectUsageError extends Error {
  override readonly name = 'ProtectUsageError';
}

export const PROTECT_USAGE =
  'protect --resource URI --upstream http://HOST:PORT [--listen :8080] [--route "GET /notes*=notes:read"]... [--issuer URL] [--ops-listen 127.0.0.1:9090] [--public-url URL] [--pass-token] [--max-connections N] [--upstream-connections N] [--upstream-timeout S] [--max-header-bytes N] [--max-body-bytes N] [--revocation-poll-ms N] [--offline-grace S] [--shutdown-grace S]';

/** ":8080" (every interface), "127.0.0.1:8080", "[::1]:8080", "8080". */
export function parseAddress(value: string, flag: string): Address {
  const match = /^(?:(\[[0-9a-fA-F:.]+\]|[A-Za-z0-9.-]*):)?(\d{1,5})$/.exec(value);
  const port = Number(match?.[2]);
  if (!match || port > 65535)
    throw new ProtectUsageError(`${flag}: expected [HOST]:PORT, e.g. :8080 or 127.0.0.1:8080, got ${JSON.stringify(value.slice(0, 100))}`);
  const host = (match[1] ?? '').replace(/^\[|\]$/g, '');
  return { host: host === '' ? '0.0.0.0' : host, port };
}

function positiveInteger(value: string | undefined, fallback: number, flag: string, { min = 1, max = Number.MAX_SAFE_INTEGER } = {}): number {
  if (value === undefined) return fallback;
  const n = Number(value);
  if (!Number.isSafeInteger(n) || n < min || n > max)
    throw new ProtectUsageError(`${flag}: expected a whole number from ${min} to ${max}, got ${JSON.stringify(value.slice(0, 40))}`);
  return n;
}

function absoluteUrl(value: string, flag: string, protocols: readonly string[]): URL {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new ProtectUsageError(`${flag}: expected an absolute URL, got ${JSON.stringify(value.slice(0, 200))}`);
  }
  if (!protocols.includes(url.protocol)) throw new ProtectUsageError(`${flag}: must be ${protocols.join(' or ')}`);
  return url;
}

export function parseProtectArgs(args: string[], env: NodeJS.ProcessEnv): ProtectOptions {
  let values: Record<string, string | boolean | string[] | undefined>;
  try {
    ({ values } = parseArgs({
      args,
      strict: true,
      options: {
        resource: { type: 'string' },
        upstream: { type: 'string' },
        listen: { type: 'string' },
        'ops-listen': { type: 'string' },
        route: { type: 'string', multiple: true },
        issuer: { type: 'string' },
        'public-url': { type: 'string' },
        'pass-token': { type: 'boolean' },
        'max-connections': { type: 'string' },
        'upstream-connections': { type: 'string' },
        'upstream-timeout': { type: 'string' },
        'max-header-bytes': { type: 'string' },
        'max-body-bytes': { type: 'string' },
        'revocation-poll-ms': { type: 'string' },
        'offline-grace': { type: 'string' },
        'shutdown-grace': { type: 'string' },
      },
    }));
  } catch (error) {
    throw new ProtectUsageError(`${(error as Error).message}\nusage: gatehouse ${PROTECT_USAGE}`);
  }
  const str = (name: string) => values[name] as string | undefined;
  if (!str('resource')) throw new ProtectUsageError('--resource is required: the identifier of a registered resource server (the aud of its tokens)');
  if (!str('upstream')) throw new ProtectUsageError('--upstream is required: the service to protect, e.g. http://127.0.0.1:3000');
  const resource = str('resource')!;
  absoluteUrl(resource, '--resource', ['https:', 'http:']);
  const upstream = absoluteUrl(str('upstream')!, '--upstream', ['http:']);
  const issuer = str('issuer') ?? env.ISSUER;
  if (!issuer) throw new ProtectUsageError('--issuer is required (or ISSUER in the environment): the Gatehouse that issues the tokens');
  absoluteUrl(issuer, '--issuer', ['https:', 'http:']);
  const clientId = env.GATEHOUSE_CLIENT_ID;
  const clientSecret = env.GATEHOUSE_CLIENT_SECRET;
  if (!clientId || !clientSecret)
    throw new ProtectUsageError(
      'GATEHOUSE_CLIENT_ID and GATEHOUSE_CLIENT_SECRET are required in the environment: the credentials `gatehouse resource-servers create` printed for this resource (they read its routes and the revocation feed)',
    );
  let routes: RouteRule[] | undefined;
  try {
    routes = (values.route as string[] | undefined)?.map(parseRoute);
  } catch (error) {
    if (error instanceof RouteSyntaxError) throw new ProtectUsageError(`--route: ${error.message}`);
    throw error;
  }
  const publicUrl = str('public-url');
  if (publicUrl !== undefined) absoluteUrl(publicUrl, '--public-url', ['https:', 'http:']);
  return {
    resource,
    upstream,
    issuer: issuer.replace(/\/$/, ''),
    listen: parseAddress(str('listen') ?? ':8080', '--listen'),
    opsListen: parseAddress(str('ops-listen') ?? '127.0.0.1:9090', '--ops-listen'),
    routes,
    clientId,
    clientSecret,
    publicUrl,
    passToken: values['pass-token'] === true,
    maxConnections: positiveInteger(str('max-connections'), 1024, '--max-connections'),
    upstreamConnections: positiveInteger(str('upstream-connections'), 256, '--upstream-connections'),
    upstreamTimeoutMs: positiveInteger(str('upstream-timeout'), 30, '--upstream-timeout', { max: 3600 }) * 1000,
    maxHeaderBytes: positiveInteger(str('max-header-bytes'), 16 * 1024, '--max-header-bytes', { min: 1024, max: 1024 * 1024 }),
    maxBodyBytes: positiveInteger(str('max-body-bytes'), 10 * 1024 * 1024, '--max-body-bytes', { min: 0 }),
    revocationPollMs: positiveInteger(str('revocation-poll-ms'), 500, '--revocation-poll-ms', { min: 50, max: 500 }),
    offlineGraceMs: positiveInteger(str('offline-grace'), 30, '--offline-grace', { min: 1, max: 3600 }) * 1000,
    shutdownGraceMs: positiveInteger(str('shutdown-grace'), 10, '--shutdown-grace', { min: 0, max: 600 }) * 1000,
    logLevel: env.LOG_LEVEL ?? 'info',
  };
}
