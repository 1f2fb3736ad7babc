// A GET to a URL a client chose (its jwks_uri): a pinned request (pinned-request.ts) of which only a 200 is
// accepted; redirects are not followed.
import { pinnedRequest } from './pinned-request.js';
import { OutboundRefused, type OutboundPolicy } from './outbound-policy.js';

export interface PinnedGetOptions {
  policy: OutboundPolicy;
  timeoutMs: number;
  maxBytes: number;
  headers?: Record<string, string>;
  /** A caller's own cancellation, on top of the timeout. */
  signal?: AbortSignal | undefined;
}

export interface PinnedResponse {
  contentType: string | undefined;
  /** The answer's Cache-Control, for callers that honour HTTP caching (a client metadata document). */
  cacheControl: string | undefined;
  body: Buffer;
}

export async function pinnedGet(raw: string, options: PinnedGetOptions): Promise<PinnedResponse> {
  const answer = await pinnedRequest(raw, { ...options, method: 'GET' });
  if (answer.status !== 200) throw new OutboundRefused('http_status', `answered ${answer.status} (only 200 is accepted; redirects are not followed)`);
  return { contentType: answer.headers['content-type'], cacheControl: answer.headers['cache-control'], body: answer.body };
}
