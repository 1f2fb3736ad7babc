// A real OTLP/HTTP receiver (the OpenTelemetry Collector's protocol, JSON encoding: the exporter runs with
// OTEL_EXPORTER_OTLP_PROTOCOL=http/json), started by the test on a loopback port. It accepts
// `POST /v1/traces` as a collector does (200 with an empty ExportTraceServiceResponse) and keeps every span
// with its resource; anything else it is sent is recorded too, so a test can say that nothing came.
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedSpan {
  traceId: string;
  spanId: string;
  parentSpanId: string | undefined;
  name: string;
  /** 1 internal, 2 server, 3 client, 4 producer, 5 consumer (OTLP SpanKind). */
  kind: number;
  attributes: Record<string, string | number | boolean>;
  /** OTLP status code: 0 unset, 1 ok, 2 error. */
  status: number;
  scope: string;
  resource: Record<string, string | number | boolean>;
  /** The spans this one links to (not its parent): another trace's context it was started with or given. */
  links: { traceId: string; spanId: string; attributes: Record<string, string | number | boolean> }[];
}

export interface OtlpReceiver {
  /** The base URL, for OTEL_EXPORTER_OTLP_ENDPOINT. */
  url: string;
  spans: ReceivedSpan[];
  /** Every request received, by path (the exporter sends `/v1/traces`). */
  requests: string[];
  /** Resolves with the spans received once `match` finds one, or rejects after `timeoutMs`. */
  waitForSpan(match: (span: ReceivedSpan) => boolean, timeoutMs?: number): Promise<ReceivedSpan>;
  close(): Promise<void>;
}

interface AnyValue {
  stringValue?: string;
  intValue?: string | number;
  boolValue?: boolean;
  doubleValue?: number;
}
type KeyValue = { key: string; value: AnyValue };
interface ExportTraceServiceRequest {
  resourceSpans?: {
    resource?: { attributes?: KeyValue[] };
    scopeSpans?: {
      scope?: { name?: string };
      spans?: {
        traceId: string;
        spanId: string;
        parentSpanId?: string;
        name: string;
        kind?: number;
        attributes?: KeyValue[];
        status?: { code?: number };
        links?: { traceId: string; spanId: string; attributes?: KeyValue[] }[];
      }[];
    }[];
  }[];
}

const value = (v: AnyValue): string | number | boolean =>
  v.stringValue ?? (v.intValue !== undefined ? Number(v.intValue) : undefined) ?? v.boolValue ?? v.doubleValue ?? '';
const attributeMap = (list: KeyValue[] = []) => Object.fromEntries(list.map((a) => [a.key, value(a.value)]));

export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const spans: ReceivedSpan[] = [];
  const requests: string[] = [];
  const waiters: (() => void)[] = [];
  const server = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (c: Buffer) => chunks.push(c));
    request.on('end', () => {
      requests.push(request.url ?? '');
      if (request.method !== 'POST' || request.url !== '/v1/traces' || !/json/.test(request.headers['content-type'] ?? '')) {
        response.writeHead(404).end();
        return;
      }
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as ExportTraceServiceRequest;
      for (const rs of body.resourceSpans ?? []) {
        const resource = attributeMap(rs.resource?.attributes);
        for (const ss of rs.scopeSpans ?? []) {
          for (const s of ss.spans ?? []) {
            spans.push({
              traceId: s.traceId,
              spanId: s.spanId,
              parentSpanId: s.parentSpanId || undefined,
              name: s.name,
              kind: s.kind ?? 0,
              attributes: attributeMap(s.attributes),
              status: s.status?.code ?? 0,
              scope: ss.scope?.name ?? '',
              resource,
              links: (s.links ?? []).map((l) => ({ traceId: l.traceId, spanId: l.spanId, attributes: attributeMap(l.attributes) })),
            });
          }
        }
      }
      response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      for (const wake of waiters.splice(0)) wake();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    spans,
    requests,
    async waitForSpan(match, timeoutMs = 20_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const found = spans.find(match);
        if (found) return found;
        if (Date.now() > deadline) throw new Error(`no matching span among the ${spans.length} received`);
        await new Promise<void>((resolve) => {
          waiters.push(resolve);
          setTimeout(resolve, 200);
        });
      }
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** The span and its ancestors up to the root (as far as the receiver has them), nearest first. */
export function ancestry(spans: readonly ReceivedSpan[], span: ReceivedSpan): ReceivedSpan[] {
  const chain: ReceivedSpan[] = [];
  let current: ReceivedSpan | undefined = span;
  while (current) {
    chain.push(current);
    const parent: string | undefined = current.parentSpanId;
    current = parent ? spans.find((s) => s.spanId === parent && s.traceId === span.traceId) : undefined;
  }
  return chain;
}
