// Load generation with autocannon's programmatic API over loopback. A load is either one fixed request
// repeated for a duration, or a pool of distinct requests (fresh refresh tokens, codes, idempotency
// keys) sent once each: then `amount` = pool size, so no request is ever sent twice.
import autocannon, { type Request, type RequestSpec, type Result } from 'autocannon';

export interface LoadSpec {
  /** Absolute URL of the target (its path is used for fixed requests). */
  url: string;
  method?: string;
  headers?: Record<string, string>;
  body?: string;
  /** Distinct requests, each sent exactly once (run length = pool size / rate). */
  pool?: Request[];
  /** Builds each request on the fly (e.g. a fresh Idempotency-Key); for duration-based runs. */
  generate?: () => Request;
  /** The status every response must have; anything else counts as an error. */
  expectStatus: number;
}

export interface LoadResult {
  rps: number;
  p50: number;
  p99: number;
  requests: number;
  errors: number;
  seconds: number;
  statusCodes: Record<string, number>;
}

export function runLoad(spec: LoadSpec, options: { connections: number; seconds: number }): Promise<LoadResult> {
  const base = { method: spec.method ?? 'GET', headers: spec.headers ?? {}, ...(spec.body !== undefined ? { body: spec.body } : {}) };
  const url = new URL(spec.url);
  const path = url.pathname + url.search;
  let requests: RequestSpec[] = [{ ...base, path }];
  let amount: number | undefined;
  if (spec.pool) {
    const pool = spec.pool;
    if (pool.length === 0) throw new Error('empty request pool');
    let i = 0;
    requests = [{ ...base, path, setupRequest: (req: Request) => merge(req, pool[Math.min(i++, pool.length - 1)]!) }];
    // Each connection builds its next request before the previous one is answered: keep that many spare.
    amount = Math.max(1, pool.length - options.connections);
  } else if (spec.generate) {
    const generate = spec.generate;
    requests = [{ ...base, path, setupRequest: (req: Request) => merge(req, generate()) }];
  }
  return new Promise((resolve, reject) => {
    autocannon(
      {
        url: url.origin,
        connections: options.connections,
        pipelining: 1,
        timeout: 10,
        requests,
        ...(amount !== undefined ? { amount } : { duration: options.seconds }),
      },
      (error, result) => (error ? reject(error) : resolve(summarise(result, spec.expectStatus))),
    );
  });
}

const merge = (req: Request, item: Request): Request => ({ ...req, ...item, headers: { ...req.headers, ...item.headers } });

function summarise(result: Result, expectStatus: number): LoadResult {
  const statusCodes = Object.fromEntries(Object.entries(result.statusCodeStats).map(([code, s]) => [code, s.count]));
  const total = Object.values(statusCodes).reduce((a, b) => a + b, 0);
  const ok = statusCodes[String(expectStatus)] ?? 0;
  return {
    rps: total / result.duration,
    p50: result.latency.p50,
    p99: result.latency.p99,
    requests: total,
    // No answer at all within the run is a failure too, not a quiet zero.
    errors: total - ok + result.errors + result.timeouts + (total === 0 ? 1 : 0),
    seconds: result.duration,
    statusCodes,
  };
}
