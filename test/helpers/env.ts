// The one environment preset tests share. (testConfig in app.ts already turns event-loop load shedding off
// for every test app: a busy shared machine must not turn answers into 503s.)

/**
 * Rate limits are other tests' subject: off for tests that exercise failures on purpose or send many requests
 * from one address (rate limiting has its own tests, with the real limits).
 */
export const NO_LIMITS = { RATE_LIMIT_ENABLED: 'false', OVERLOAD_MAX_EVENT_LOOP_DELAY: '0' } as const;
