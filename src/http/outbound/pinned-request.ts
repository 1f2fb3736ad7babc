// A request to a URL someone else chose (a client's jwks_uri, an upstream identity provider's endpoints):
// checked against the outbound policy, connected to the address that was checked (the socket's `lookup`
// answers with it instead of resolving again), bounded in time from name resolution to the last byte, and
// in size while the body arrives. Redirects are not followed: a 3xx is answered as it is.
import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import { checkedTarget, OutboundRefused, type CheckedTarget, type OutboundPolicy, type ResolvedAddress } from './outbound-policy.js';

export interface PinnedRequestOptions {
  policy: OutboundPolicy;
  timeoutMs: number;
  maxBytes: number;
  method?: 'GET' | 'POST';
  headers?: Record<string, string>;
  body?: string;
  /** A caller's own cancellation, on top of the timeout. */
  signal?: AbortSignal | undefined;
}

export interface PinnedAnswer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
}

const pinnedLookup =
  ({ address, family }: ResolvedAddress): LookupFunction =>
  (_hostname, options, callback) => {
    if (options.all) (callback as (e: null, a: ResolvedAddress[]) => void)(null, [{ address, family }]);
    else callback(null, address, family);
  };

function send(target: CheckedTarget, options: PinnedRequestOptions, signal: AbortSignal): Promise<PinnedAnswer> {
  const { url, address } = target;
  const request = url.protocol === 'https:' ? https.request : http.request;
  return new Promise((resolve, reject) => {
    const tls = options.policy.ca !== undefined && url.protocol === 'https:' ? { ca: options.policy.ca } : {};
    const req = request(
      url,
      { method: options.method ?? 'GET', headers: options.headers, lookup: pinnedLookup(address), agent: false, signal, ...tls },
      (res) => {
        const declared = Number(res.headers['content-length']);
        if (declared > options.maxBytes) {
          res.destroy();
          reject(new OutboundRefused('too_large', `declares ${declared} bytes, more than ${options.maxBytes}`));
          return;
        }
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size > options.maxBytes) {
            res.destroy();
            reject(new OutboundRefused('too_large', `sent more than ${options.maxBytes} bytes`));
            return;
          }
          chunks.push(chunk);
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(options.body);
  });
}

export async function pinnedRequest(raw: string, options: PinnedRequestOptions): Promise<PinnedAnswer> {
  const deadline = AbortSignal.timeout(options.timeoutMs);
  const signal = options.signal ? AbortSignal.any([deadline, options.signal]) : deadline;
  // A caller's signal that fired because of its own timeout is a timeout too.
  const timedOut = () => deadline.aborted || (options.signal?.reason as Error | undefined)?.name === 'TimeoutError';
  const aborted = new Promise<never>((_, reject) => {
    const fail = () =>
      reject(timedOut() ? new OutboundRefused('timeout', `took longer than ${options.timeoutMs} ms`) : new OutboundRefused('request_failed', 'cancelled'));
    if (signal.aborted) fail();
    else signal.addEventListener('abort', fail, { once: true });
  });
  aborted.catch(() => {});
  try {
    // Name resolution cannot be cancelled, so the deadline races it.
    const target = await Promise.race([checkedTarget(raw, options.policy), aborted]);
    return await Promise.race([send(target, options, signal), aborted]);
  } catch (error) {
    if (error instanceof OutboundRefused) throw error;
    if (timedOut()) throw new OutboundRefused('timeout', `took longer than ${options.timeoutMs} ms`);
    throw new OutboundRefused('request_failed', (error as Error).message);
  }
}
