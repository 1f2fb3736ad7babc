// Rate limits (RFC 6585 §4, draft-ietf-httpapi-ratelimit-headers). Counters live in process
// memory on one instance and in Redis when REDIS_URL is set, so a limit holds across instances. If Redis
// is down, each instance falls back to its own memory counters (fail-open per instance, logged) rather
// than refusing every request.
//
// Two ways to use a limit:
//   hit(name, key)       count this request; over the limit → 429 (request limits)
//   reserve(name, key)   charge one failure *before* the expensive check, refund it when the check succeeds
//                        (brute-force budgets, docs/rate-limits.md). The charge is one atomic increment in
//                        memory or in Redis, so N parallel attempts cannot all pass a budget smaller than N.
import type { Redis } from 'ioredis';
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';
import type { Config } from '../config.js';
import { ProblemError } from './errors.js';

const LIMIT_NAMES = [
  'token',
  'client_auth_failures',
  'login_failures',
  'user_codes',
  'introspection',
  'api',
  'anonymous',
  'pages',
  'mail_address',
  'mail_recipient',
] as const;
export type LimitName = (typeof LIMIT_NAMES)[number];

const WINDOW_SECONDS = 60;
/**
 * The budgets of pages that send e-mail count per hour (docs/rate-limits.md): a minute is too short to
 * stop someone mailing a victim a reset link every few seconds, and a person asks for such a mail rarely.
 */
const HOURLY: ReadonlySet<LimitName> = new Set(['mail_address', 'mail_recipient']);
const windowSeconds = (name: LimitName) => (HOURLY.has(name) ? 3600 : WINDOW_SECONDS);

export interface LimitHeaders {
  'ratelimit-policy': string;
  ratelimit: string;
}

/** One charged attempt; `refund` gives the point back once the attempt turned out to be legitimate. */
export interface Reservation {
  refund(): Promise<void>;
}

export interface RateLimits {
  readonly enabled: boolean;
  /** Counts one request for `key`; throws a 429 ProblemError past the limit. Returns headers to send. */
  hit(name: LimitName, key: string): Promise<LimitHeaders | undefined>;
  /** Charges one attempt to `key` up front; throws a 429 ProblemError when the budget is already used up. */
  reserve(name: LimitName, key: string): Promise<Reservation>;
}

function limitPoints(config: Config): Record<LimitName, number> {
  return {
    token: config.RATE_LIMIT_TOKEN,
    client_auth_failures: config.RATE_LIMIT_CLIENT_AUTH_FAILURES,
    login_failures: config.RATE_LIMIT_LOGIN_FAILURES,
    user_codes: config.RATE_LIMIT_USER_CODES,
    introspection: config.RATE_LIMIT_INTROSPECTION,
    api: config.RATE_LIMIT_API,
    anonymous: config.RATE_LIMIT_ANONYMOUS,
    pages: config.RATE_LIMIT_PAGES,
    mail_address: config.RATE_LIMIT_MAIL_PER_ADDRESS,
    mail_recipient: config.RATE_LIMIT_MAIL_PER_RECIPIENT,
  };
}

const nothingToRefund: Reservation = { refund: async () => {} };

const disabled: RateLimits = {
  enabled: false,
  hit: async () => undefined,
  reserve: async () => nothingToRefund,
};

export function createRateLimits(
  config: Config,
  { redis, onStoreError }: { redis?: Redis | undefined; onStoreError?: (error: unknown) => void } = {},
): RateLimits {
  if (!config.RATE_LIMIT_ENABLED) return disabled;
  const points = limitPoints(config);
  const limiters = Object.fromEntries(
    LIMIT_NAMES.map((name) => {
      const options = { keyPrefix: `gatehouse:rl:${name}`, points: points[name], duration: windowSeconds(name) };
      const memory = new RateLimiterMemory(options);
      const limiter: RateLimiterAbstract = redis
        ? new RateLimiterRedis({ ...options, storeClient: redis, rejectIfRedisNotReady: true, insuranceLimiter: memory })
        : memory;
      return [name, limiter];
    }),
  ) as Record<LimitName, RateLimiterAbstract>;

  const headers = (name: LimitName, res: RateLimiterRes): LimitHeaders => ({
    'ratelimit-policy': `"${name}";q=${points[name]};w=${windowSeconds(name)}`,
    ratelimit: `"${name}";r=${Math.max(0, res.remainingPoints)};t=${Math.ceil(res.msBeforeNext / 1000)}`,
  });

  const limited = (name: LimitName, res: RateLimiterRes) =>
    new ProblemError('rate-limited', 'Too many requests; retry later.', {
      log: { reason: `rate_limited_${name}` },
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
    async reserve(name, key) {
      await consume(name, key);
      return {
        refund: async () => {
          try {
            await limiters[name].reward(key, 1);
          } catch (error) {
            onStoreError?.(error);
          }
        },
      };
    },
  };
}
