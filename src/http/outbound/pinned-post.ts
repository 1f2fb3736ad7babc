// A POST to a URL an operator or a client chose (a webhook endpoint, a client's backchannel_logout_uri): a
// pinned request (pinned-request.ts) under the same address rules as the jwks_uri GET (outbound-policy.ts),
// so neither can be pointed at the server's own host, its network or a cloud metadata service unless the
// operator allow-listed the host (WEBHOOK_ALLOWED_HOSTS). Any 2xx is acceptance; redirects are not followed.
import { pinnedRequest } from './pinned-request.js';
import { OutboundRefused, type OutboundPolicy } from './outbound-policy.js';
import { withTraceHeaders } from '../../telemetry/trace-context.js';

export interface PinnedPostOptions {
  policy: OutboundPolicy;
  timeoutMs: number;
  /** The most of the receiver's answer read (it is only kept for the operator's error text). */
  maxBytes: number;
  headers: Record<string, string>;
  body: string;
  signal?: AbortSignal | undefined;
}

export interface PinnedPostAnswer {
  status: number;
  body: Buffer;
}

/** Resolves with a 2xx answer; OutboundRefused otherwise (`http_status` carries the status in `status`). */
export async function pinnedPost(raw: string, options: PinnedPostOptions): Promise<PinnedPostAnswer> {
  // `traceparent` names the active span (an outbox delivery attempt's) when tracing is on, so the receiver's
  // spans join the trace (docs/observability.md#traces); with tracing off nothing is added.
  const answer = await pinnedRequest(raw, { ...options, headers: withTraceHeaders(options.headers), method: 'POST' });
  if (answer.status < 200 || answer.status > 299) {
    throw Object.assign(
      new OutboundRefused('http_status', `answered ${answer.status}${answer.status >= 300 && answer.status < 400 ? ' (redirects are not followed)' : ''}`),
      { status: answer.status },
    );
  }
  return { status: answer.status, body: answer.body };
}
