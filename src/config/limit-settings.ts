// What one caller may send or spend: body sizes, rate limits and the proxies whose addresses count
// (docs/rate-limits.md), and the load-shedding thresholds (docs/security/request-limits.md).
import { int, bool, list, perMinute, type Setting } from './setting.js';

export const requestLimitSettings = {
  JSON_BODY_LIMIT: {
    doc: 'Largest accepted JSON body in bytes (413 beyond).',
    expects: 'an integer number of bytes',
    parse: int(1024, 104_857_600),
    fallback: 1_048_576,
  },
  FORM_BODY_LIMIT: {
    doc: 'Largest accepted form body (/token, login, consent) in bytes.',
    expects: 'an integer number of bytes',
    parse: int(1024, 10_485_760),
    fallback: 65_536,
  },
  RATE_LIMIT_ENABLED: {
    doc: 'Master switch for every rate limit (turn off only for benchmarks and load tests).',
    expects: 'true or false',
    parse: bool,
    fallback: true,
  },
  RATE_LIMIT_TOKEN: perMinute('/token requests per client per minute.', 600),
  RATE_LIMIT_CLIENT_AUTH_FAILURES: perMinute(
    'Failed client authentications per (client_id, address) per minute; unknown client_ids share one budget per address.',
    20,
  ),
  RATE_LIMIT_LOGIN_FAILURES: perMinute('Failed logins per (username, address) per minute; unknown usernames share one budget per address.', 10),
  RATE_LIMIT_USER_CODES: perMinute('User codes entered on /device per address per minute, charged before the code is checked (docs/device-flow.md).', 10),
  RATE_LIMIT_INTROSPECTION: perMinute('/introspect and /revoke calls per caller per minute.', 600),
  RATE_LIMIT_API: perMinute('Resource API requests per token subject per minute.', 1200),
  RATE_LIMIT_ANONYMOUS: perMinute('Unauthenticated registration requests per address per minute.', 300),
  RATE_LIMIT_OPEN_REGISTRATIONS: {
    doc: 'Clients one address (an IPv6 /64 counts as one) may register per hour without an initial access token (REGISTRATION=open). Counted in the database: RATE_LIMIT_ENABLED=false does not turn it off.',
    expects: 'a positive integer (registrations per hour)',
    parse: int(1, 1_000_000),
    fallback: 10,
  },
  // A complete login is three to five page requests; 3000 lets a corporate NAT do 300 logins a minute and more.
  RATE_LIMIT_PAGES: perMinute('Browser page requests (/authorize, login, consent, logout) per address per minute.', 3000),
  // Pages that send e-mail (forgotten password, sign-up, e-mail change; docs/rate-limits.md): per hour.
  RATE_LIMIT_MAIL_PER_ADDRESS: {
    doc: 'Requests to pages that send e-mail (forgotten password, sign-up, e-mail change) per client address per hour (429 beyond). A NAT of a few thousand people stays far below it.',
    expects: 'a positive integer (requests per hour)',
    parse: int(1, 1_000_000),
    fallback: 60,
  },
  RATE_LIMIT_MAIL_PER_RECIPIENT: {
    doc: 'E-mails those pages send to one address per hour, whoever asks; past it the page answers as always and sends nothing (no e-mail bombing, no enumeration).',
    expects: 'a positive integer (messages per hour)',
    parse: int(1, 1000),
    fallback: 5,
  },
  TRUST_PROXY: {
    doc: 'Comma-separated proxy addresses/CIDRs whose X-Forwarded-For (and, with tracing on, incoming trace context) is trusted. Empty: the socket address is the client.',
    expects: 'a comma-separated list of IPs or CIDRs',
    parse: (raw: string) => list(raw),
    fallback: [] as string[],
    docDefault: '(none)',
  },
} satisfies Record<string, Setting<unknown>>;

export const overloadSettings = {
  OVERLOAD_MAX_EVENT_LOOP_DELAY: {
    doc: 'Event-loop delay (ms) above which new requests are shed with 503 + Retry-After. 0 = off.',
    expects: 'an integer number of milliseconds',
    parse: int(0, 60_000),
    fallback: 1000,
  },
  OVERLOAD_MAX_DB_WAITING: {
    doc: 'Requests queued for a PostgreSQL connection above which new requests are shed with 503 + Retry-After. 0 = off.',
    expects: 'a non-negative integer',
    parse: int(0, 100_000),
    fallback: 200,
  },
} satisfies Record<string, Setting<unknown>>;
