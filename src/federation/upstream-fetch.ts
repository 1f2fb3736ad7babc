// Every request to an upstream identity provider (discovery, token, userinfo, e-mails) goes through here:
// the outbound policy (no loopback, private network or cloud metadata address, https only —
// src/http/outbound/), the address that was checked is the one connected to, no redirect is followed, and
// time and size are bounded per call. oauth4webapi calls it as its `customFetch`.
import { pinnedRequest } from '../http/outbound/pinned-request.js';
import type { OutboundPolicy } from '../http/outbound/outbound-policy.js';

export interface UpstreamLimits {
  /** Per call, from name resolution to the last byte. */
  timeoutMs: number;
  /** Per response body. */
  maxBytes: number;
}

/** An id_token response is a few KiB; a userinfo or discovery document rarely 20. */
export const DEFAULT_UPSTREAM_LIMITS: UpstreamLimits = { timeoutMs: 10_000, maxBytes: 256 * 1024 };

type FetchInit = { method?: string; headers?: Record<string, string> | Headers | [string, string][]; body?: unknown; signal?: AbortSignal | null };

function headerRecord(headers: FetchInit['headers']): Record<string, string> {
  if (!headers) return {};
  return Object.fromEntries(new Headers(headers as ConstructorParameters<typeof Headers>[0]).entries());
}

function bodyText(body: unknown): string | undefined {
  if (body === undefined || body === null) return undefined;
  if (typeof body === 'string') return body;
  if (body instanceof URLSearchParams) return body.toString();
  throw new TypeError('upstream requests carry a string or form body');
}

/** A fetch that answers any status as it came (oauth4webapi reads error bodies), refusing what the policy refuses. */
export function upstreamFetch(policy: OutboundPolicy, limits: UpstreamLimits) {
  return async (url: string, init: FetchInit = {}): Promise<Response> => {
    const method = (init.method ?? 'GET').toUpperCase();
    if (method !== 'GET' && method !== 'POST') throw new TypeError(`upstream requests are GET or POST, not ${method}`);
    const body = bodyText(init.body);
    const headers = headerRecord(init.headers);
    if (body !== undefined && !Object.keys(headers).some((h) => h.toLowerCase() === 'content-type'))
      headers['content-type'] = 'application/x-www-form-urlencoded;charset=UTF-8';
    if (body !== undefined) headers['content-length'] = String(Buffer.byteLength(body));
    const answer = await pinnedRequest(url, {
      policy,
      timeoutMs: limits.timeoutMs,
      maxBytes: limits.maxBytes,
      method,
      headers,
      ...(body !== undefined ? { body } : {}),
      signal: init.signal ?? undefined,
    });
    const responseHeaders = new Headers();
    for (const [name, value] of Object.entries(answer.headers)) {
      if (value === undefined) continue;
      for (const v of Array.isArray(value) ? value : [value]) responseHeaders.append(name, v);
    }
    // A Response cannot carry a body with these statuses.
    const bodyless = [204, 205, 304].includes(answer.status) || answer.status < 200;
    const response = new Response(bodyless ? null : new Uint8Array(answer.body), {
      status: answer.status < 200 || answer.status > 599 ? 502 : answer.status,
      headers: responseHeaders,
    });
    // oauth4webapi checks `response.url` nowhere, but a redirect-less fetch's Response names its URL.
    Object.defineProperty(response, 'url', { value: url });
    return response;
  };
}

/** A JSON document from an upstream (discovery, userinfo, e-mails): 200 and a JSON body, or an Error. */
export async function upstreamJson(fetcher: ReturnType<typeof upstreamFetch>, url: string, headers: Record<string, string> = {}): Promise<unknown> {
  const response = await fetcher(url, { method: 'GET', headers: { accept: 'application/json', ...headers } });
  if (response.status !== 200) throw new Error(`${url} answered ${response.status}`);
  try {
    return JSON.parse(await response.text());
  } catch {
    throw new Error(`${url} did not answer JSON`);
  }
}
