// Rate limits (RFC 6585 §4, draft-ietf-httpapi-ratelimit-headers). Counters live in process
// memory on one instance and in Redis when REDIS_URL is set, so a limit holds across instances. If Redis
// is down, each instance falls back to its own memory counters (fail-open per instance, logged) rather
// than refusing every request.
//
// Two ways to use a limit:
//   hit(name, key)            count this request; over the limit → 429 (request limits)
//   assertNotBlocked + fail   refuse while a key has too many recorded failures, count a failure only when
//                             one happens (brute force: a blocked client is refused even with the right secret)
import type { Redis } from 'ioredis';
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';
import type { Config } from '../config.js';
import { ProblemError } from './errors.js';

export const LIMIT_NAMES = ['token', 'client_auth_failures', 'login_failures', 'introspection', 'api', 'anonymous'] as const;
export type LimitName = (typeof LIMIT_NAMES)[number];

const WINDOW_SECONDS = 60;

export interface LimitHeaders {
  'ratelimit-policy': string;
  ratelimit: string;
}

export interface RateLimits {
  readonly enabled: boolean;
  /** Counts one request for `key`; throws a 429 ProblemError past the limit. Returns headers to send. */
  hit(name: LimitName, key: string): Promise<LimitHeaders | undefined>;
  /** Throws a 429 ProblemError when `key` already used up its failure budget. */
  assertNotBlocked(name: LimitName, key: string): Promise<void>;
  /** Records one failure for `key`. */
  fail(name: LimitName, key: string): Promise<void>;
}

export function limitPoints(config: Config): Record<LimitName, number> {
  return {
    token: config.RATE_LIMIT_TOKEN,
    client_auth_failures: config.RATE_LIMIT_CLIENT_AUTH_FAILURES,
    login_failures: config.RATE_LIMIT_LOGIN_FAILURES,
    introspection: config.RATE_LIMIT_INTROSPECTION,
    api: config.RATE_LIMIT_API,
    anonymous: config.RATE_LIMIT_ANONYMOUS,
  };
}

const disabled: RateLimits = {
  enabled: false,
  hit: async () => undefined,
  assertNotBlocked: async () => {},
  fail: async () => {},
};

export function createRateLimits(
  config: Config,
  { redis, onStoreError }: { redis?: Redis | undefined; onStoreError?: (error: unknown) => void } = {},
): RateLimits {
  if (!config.RATE_LIMIT_ENABLED) return disabled;
  const points = limitPoints(config);
  const limiters = Object.fromEntries(
    LIMIT_NAMES.map((name) => {
      const options = { keyPrefix: `gatehouse:rl:${name}`, points: points[name], duration: WINDOW_SECONDS };
      const memory = new RateLimiterMemory(options);
      const limiter: RateLimiterAbstract = redis
        ? new RateLimiterRedis({ ...options, storeClient: redis, rejectIfRedisNotReady: true, insuranceLimiter: memory })
        : memory;
      return [name, limiter];
    }),
  ) as Record<LimitName, RateLimiterAbstract>;

  const headers = (name: LimitName, res: RateLimiterRes): LimitHeaders => ({
    'ratelimit-policy': `"${name}";q=${points[name]};w=${WINDOW_SECONDS}`,
    ratelimit: `"${name}";r=${Math.max(0, res.remainingPoints)};t=${Math.ceil(res.msBeforeNext / 1000)}`,
  });

  const limited = (name: LimitName, res: RateLimiterRes) =>
    new ProblemError('rate-limited', 'Too many requests; retry later.', {
      headers: { 'retry-after': String(Math.max(1, Math.ceil(res.msBeforeNext / 1000))), ...headers(name, res) },
    });

  // rate-limiter-flexible rejects with a RateLimiterRes when over the limit and with an Error when the
  // store fails; with the insurance limiter in place a store failure is already absorbed, this is the last guard.
  async function consume(name: LimitName, key: string): Promise<RateLimiterRes | undefined> {
    try {
      return await limiters[name].consume(key);
    } catch (rejection) {
      if (rejection instanceof RateLimiterRes) throw limited(name, rejection);
      onStoreError?.(rejection);
      return undefined;
    }
  }

  return {
    enabled: true,
    async hit(name, key) {
      const res = await consume(name, key);
      return res && headers(name, res);
    },
    async assertNotBlocked(name, key) {
      let res: RateLimiterRes | null;
      try {
        res = await limiters[name].get(key);
      } catch (error) {
        onStoreError?.(error);
        return;
      }
      if (res && res.remainingPoints <= 0 && res.consumedPoints >= points[name]) throw limited(name, res);
    },
    async fail(name, key) {
      await consume(name, key).catch(() => {
        // Recording the failure that crosses the limit is not itself refused: the next attempt is.
      });
    },
  };
}
