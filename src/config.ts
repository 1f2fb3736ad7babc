// Every setting of Gatehouse, declared once: name, parser, default and a one-line doc.
// The README's configuration table is generated from this list (`npm run docs:config`), and
// only this module reads process.env.
import { existsSync } from 'node:fs';

export class ConfigError extends Error {
  override readonly name = 'ConfigError';
}

type Env = Record<string, string | undefined>;

interface Setting<T> {
  readonly doc: string;
  /** Human description of what is accepted, used in error messages and the README. */
  readonly expects: string;
  /** Returns the parsed value, or undefined when the raw value is unacceptable. */
  readonly parse: (raw: string) => T | undefined;
  /** A fixed default, or one derived from settings parsed before it (declaration order). */
  readonly fallback?: T | ((partial: Record<string, unknown>, env: Env) => T | undefined);
  readonly docDefault?: string;
}

const int = (min: number, max: number) => (raw: string) => {
  if (!/^-?\d+$/.test(raw.trim())) return undefined;
  const n = Number(raw);
  return Number.isSafeInteger(n) && n >= min && n <= max ? n : undefined;
};
const bool = (raw: string) => {
  const v = raw.trim().toLowerCase();
  if (['1', 'true', 'yes', 'on'].includes(v)) return true;
  if (['0', 'false', 'no', 'off'].includes(v)) return false;
  return undefined;
};
const oneOf =
  <const T extends string>(...values: T[]) =>
  (raw: string) =>
    values.includes(raw as T) ? (raw as T) : undefined;
const nonEmpty = (raw: string) => (raw.trim() === '' ? undefined : raw.trim());
const httpUrl = (raw: string) => {
  try {
    const u = new URL(raw);
    if (u.protocol !== 'http:' && u.protocol !== 'https:') return undefined;
    if (u.search || u.hash) return undefined;
    return raw.replace(/\/+$/, '');
  } catch {
    return undefined;
  }
};
/** https only (never a javascript:, data: or http: image), or a same-server path (not `//host`, which is another host). */
const logoUrl = (raw: string) => {
  const value = raw.trim();
  if (/^\/(?!\/)[^\s"'<>\\]*$/.test(value)) return value;
  try {
    const u = new URL(value);
    return u.protocol === 'https:' && !u.username && !u.password && !/["'<>\s\\]/.test(value) ? u.href : undefined;
  } catch {
    return undefined;
  }
};
const postgresUrl = (raw: string) => (/^postgres(ql)?:\/\//.test(raw) || /^pglite:/i.test(raw) ? raw : undefined);
const redisUrl = (raw: string) => (/^rediss?:\/\//.test(raw) ? raw : undefined);
const base64Key = (raw: string) => {
  const bytes = Buffer.from(raw, 'base64url');
  return bytes.length === 32 && /^[A-Za-z0-9_-]+={0,2}$/.test(raw.replace(/[+/]/g, '_')) ? raw : undefined;
};
const list = (raw: string) =>
  raw
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
const currencies = (raw: string) => {
  const codes = list(raw);
  return codes.length > 0 && codes.every((c) => /^[A-Z]{3}$/.test(c)) ? codes : undefined;
};

const seconds = (doc: string, fallback: number, min = 1, max = 31_536_000): Setting<number> => ({
  doc,
  expects: `an integer number of seconds between ${min} and ${max}`,
  parse: int(min, max),
  fallback,
});
const perMinute = (doc: string, fallback: number): Setting<number> => ({
  doc,
  expects: 'a positive integer (requests per minute)',
  parse: int(1, 1_000_000),
  fallback,
});

const isLoopbackUrl = (url: string) => {
  const host = new URL(url).hostname;
  return host === 'localhost' || host === '127.0.0.1' || host === '[::1]';
};

const settings = {
  NODE_ENV: {
    doc: 'Run mode. `production` refuses generated secrets and non-https issuers.',
    expects: 'one of development, production, test',
    parse: oneOf('development', 'production', 'test'),
    fallback: 'development',
  },
  PORT: { doc: 'TCP port to listen on.', expects: 'an integer between 0 and 65535', parse: int(0, 65535), fallback: 3000 },
  HOST: {
    doc: 'Interface to bind. Use `0.0.0.0` in containers.',
    expects: 'a host name or IP address',
    parse: nonEmpty,
    fallback: 'localhost',
  },
  ISSUER: {
    doc: 'Public base URL of the service (`base_url`); the OAuth issuer identifier. No trailing slash, query or fragment.',
    expects: 'an http(s) URL without query or fragment',
    parse: httpUrl,
    fallback: (p: Record<string, unknown>) => `http://localhost:${p.PORT as number}`,
    docDefault: 'http://localhost:$PORT',
  },
  DATA_DIR: {
    doc: 'Directory of the embedded database and generated development secrets.',
    expects: 'a directory path',
    parse: nonEmpty,
    fallback: './data',
  },
  DATABASE_URL: {
    doc: 'PostgreSQL server to use instead of the embedded PostgreSQL server in DATA_DIR; `pglite:` selects PGlite in DATA_DIR (one process).',
    expects: 'a postgres:// or postgresql:// URL, or pglite:',
    parse: postgresUrl,
    fallback: undefined as string | undefined,
    docDefault: '(embedded PostgreSQL server in DATA_DIR)',
  },
  DATABASE_POOL_SIZE: {
    doc: 'Maximum connections to the PostgreSQL server.',
    expects: 'an integer between 1 and 500',
    parse: int(1, 500),
    fallback: 20,
  },
  DATABASE_PREPARED_STATEMENTS: {
    doc: 'Send repeated statements as named prepared statements (parsed and planned once per connection). Turn off behind a pooler that cannot keep them (PgBouncer < 1.21 in transaction mode).',
    expects: 'true or false',
    parse: bool,
    fallback: true,
  },
  DATABASE_STARTUP_TIMEOUT: seconds('How long start-up keeps retrying an unreachable database before giving up.', 30, 0, 3600),
  REDIS_URL: {
    doc: 'Redis for rate-limit counters shared by several instances.',
    expects: 'a redis:// or rediss:// URL',
    parse: redisUrl,
    fallback: undefined as string | undefined,
    docDefault: '(in-process counters)',
  },
  LOG_LEVEL: {
    doc: 'pino log level.',
    expects: 'one of fatal, error, warn, info, debug, trace, silent',
    parse: oneOf('fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'),
    fallback: 'info',
  },
  KEY_ENCRYPTION_KEY: {
    doc: 'Key-encryption key (32 random bytes, base64url) that seals private signing keys at rest. Generated into DATA_DIR in development; required in production.',
    expects: '32 bytes encoded as base64url (e.g. `openssl rand -base64 32 | tr "+/" "-_"`)',
    parse: base64Key,
    fallback: undefined as string | undefined,
    docDefault: '(generated in DATA_DIR outside production)',
  },
  API_AUDIENCE: {
    doc: 'Identifier of the resource API, the `aud` of every access token.',
    expects: 'an http(s) URL',
    parse: httpUrl,
    fallback: (p: Record<string, unknown>) => `${p.ISSUER as string}/v1`,
    docDefault: '$ISSUER/v1',
  },
  JWKS_URL: {
    doc: 'Verify resource-API access tokens against this remote JWKS instead of the in-process keys (API deployed apart from the authorization server).',
    expects: 'an http(s) URL',
    parse: httpUrl,
    fallback: undefined as string | undefined,
    docDefault: '(in-process keys)',
  },
  ACCESS_TOKEN_TTL: seconds('Access token lifetime.', 600, 30, 86_400),
  ID_TOKEN_TTL: seconds('id_token lifetime.', 600, 30, 86_400),
  AUTH_CODE_TTL: seconds('Authorization code lifetime.', 60, 5, 600),
  REFRESH_TOKEN_IDLE_TTL: seconds('Refresh token idle lifetime (unused for this long → expired).', 1_209_600),
  REFRESH_TOKEN_ABSOLUTE_TTL: seconds('Refresh token family absolute lifetime, counted from the first login.', 2_592_000),
  REFRESH_REUSE_GRACE: seconds(
    'Seconds in which the same rotated refresh token presented again returns the same new pair instead of revoking the family. 0 = off.',
    0,
    0,
    60,
  ),
  SESSION_TTL: seconds('Browser login session lifetime.', 43_200, 60),
  CLOCK_SKEW: seconds('Tolerance applied to exp/nbf/iat checks.', 30, 0, 300),
  DPOP_NONCE_REQUIRED: {
    doc: 'Where a DPoP proof must carry a server-provided nonce (RFC 9449 §8, §9): `token` = at /token (a proof without one gets `use_dpop_nonce` and a `DPoP-Nonce` header, which standard clients retry with), `all` = also at /v1 and /userinfo, `off` = nowhere. A nonce that is sent is always checked, and every DPoP response offers a fresh one.',
    expects: 'one of off, token, all',
    parse: oneOf('off', 'token', 'all'),
    fallback: 'token',
  },
  CLIENT_CACHE_TTL: seconds(
    'How long an instance reuses a client registration it has read (keeps /token, /authorize and the login pages off the database); a change made through /register takes effect at once on that instance, one made elsewhere (CLI, another instance) within this time. 0 = read every time.',
    5,
    0,
    300,
  ),
  JWKS_CACHE_TTL: seconds(
    'Cache time of the JWKS document; a rotated key signs only after JWKS_CACHE_TTL + KEY_REFRESH_INTERVAL + CLOCK_SKEW.',
    300,
    0,
    86_400,
  ),
  KEY_REFRESH_INTERVAL: seconds(
    'How often an instance re-reads the signing-key rows for its JWKS, signing and verifying (a key rotated elsewhere is served by every instance within this time). Every process sharing the database, the one running `keys rotate` included, must use the same value.',
    30,
    1,
    300,
  ),
  IDEMPOTENCY_TTL: seconds('Retention of idempotency keys.', 86_400, 60),
  AUDIT_RETENTION: seconds('Retention of audit events (docs/audit-log.md); older events are purged hourly.', 7_776_000, 86_400, 315_360_000),
  IDEMPOTENCY_LEASE: seconds('A keyed request still running after this long is treated as abandoned.', 30, 1, 3600),
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
  RATE_LIMIT_CLIENT_AUTH_FAILURES: perMinute('Failed client authentications per (client_id, address) per minute; unknown client_ids share one budget per address.', 20),
  RATE_LIMIT_LOGIN_FAILURES: perMinute('Failed logins per (username, address) per minute; unknown usernames share one budget per address.', 10),
  RATE_LIMIT_INTROSPECTION: perMinute('/introspect and /revoke calls per caller per minute.', 600),
  RATE_LIMIT_API: perMinute('Resource API requests per token subject per minute.', 1200),
  RATE_LIMIT_ANONYMOUS: perMinute('Unauthenticated registration requests per address per minute.', 300),
  // A complete login is three to five page requests; 3000 lets a corporate NAT do 300 logins a minute and more.
  RATE_LIMIT_PAGES: perMinute('Browser page requests (/authorize, login, consent, logout) per address per minute.', 3000),
  TRUST_PROXY: {
    doc: 'Comma-separated proxy addresses/CIDRs whose X-Forwarded-For is trusted. Empty: the socket address is the client.',
    expects: 'a comma-separated list of IPs or CIDRs',
    parse: (raw: string) => list(raw),
    fallback: [] as string[],
    docDefault: '(none)',
  },
  CURRENCIES: {
    doc: 'ISO 4217 currencies accepted by payments and orders.',
    expects: 'a comma-separated list of upper-case ISO 4217 codes',
    parse: currencies,
    fallback: ['EUR', 'USD', 'GBP', 'CHF', 'JPY'],
    docDefault: 'EUR,USD,GBP,CHF,JPY',
  },
  API_DEPRECATED_VERSIONS: {
    doc: 'Deprecated API versions as `version@deprecation-date@sunset-date` items separated by commas (dates ISO 8601).',
    expects: 'comma-separated `v<N>@<ISO date>[@<ISO date>]` items',
    parse: (raw: string) => {
      const out: { version: string; deprecatedAt: Date; sunsetAt?: Date }[] = [];
      for (const item of list(raw)) {
        const [version, dep, sunset] = item.split('@');
        if (!version || !/^v\d+$/.test(version) || !dep) return undefined;
        const deprecatedAt = new Date(dep);
        const sunsetAt = sunset ? new Date(sunset) : undefined;
        if (Number.isNaN(deprecatedAt.getTime()) || (sunsetAt && Number.isNaN(sunsetAt.getTime()))) return undefined;
        out.push(sunsetAt ? { version, deprecatedAt, sunsetAt } : { version, deprecatedAt });
      }
      return out;
    },
    fallback: [] as { version: string; deprecatedAt: Date; sunsetAt?: Date }[],
    docDefault: '(none)',
  },
  REGISTRATION_ENABLED: {
    doc: 'Serve dynamic client registration (RFC 7591/7592) at /register, guarded by initial access tokens.',
    expects: 'true or false',
    parse: bool,
    fallback: true,
  },
  CLIENT_JWKS_FETCH_TIMEOUT: {
    doc: "Milliseconds a fetch of a client's jwks_uri (private_key_jwt) may take in all, from name resolution to the last byte.",
    expects: 'an integer number of milliseconds between 100 and 30000',
    parse: int(100, 30_000),
    fallback: 3_000,
  },
  CLIENT_JWKS_MAX_BYTES: {
    doc: "Largest key set document accepted from a client's jwks_uri, in bytes; a larger one is refused while it downloads.",
    expects: 'an integer number of bytes between 1024 and 1048576',
    parse: int(1024, 1_048_576),
    fallback: 65_536,
  },
  CLIENT_JWKS_CACHE_SIZE: {
    doc: "How many clients' remote key sets an instance keeps in memory; the least recently used goes first.",
    expects: 'an integer between 1 and 100000',
    parse: int(1, 100_000),
    fallback: 1_000,
  },
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
  DEMO_ENABLED: {
    doc: 'Serve the built-in demo application at /demo (and register its client `gatehouse-demo` at start). On by default only when NODE_ENV=development.',
    expects: 'true or false',
    parse: bool,
    fallback: (p: Record<string, unknown>) => p.NODE_ENV === 'development',
    docDefault: 'true when NODE_ENV=development, else false',
  },
  BRAND_NAME: {
    doc: 'Product name shown on every page (login, consent, home, errors, demo).',
    expects: 'a non-empty name of at most 60 characters',
    parse: (raw: string) => (raw.trim() !== '' && raw.trim().length <= 60 && !/[\u0000-\u001f\u007f]/.test(raw) ? raw.trim() : undefined),
    fallback: 'Gatehouse',
  },
  BRAND_LOGO_URL: {
    doc: 'Logo shown above every page: an https URL (its origin joins the pages\' img-src) or an absolute path on this server.',
    expects: 'an https URL or a path starting with a single /',
    parse: logoUrl,
    fallback: undefined as string | undefined,
    docDefault: '(none)',
  },
  BRAND_ACCENT_COLOR: {
    doc: 'Accent colour of buttons and links, as #rgb or #rrggbb.',
    expects: 'a hex colour such as #2454d6',
    parse: (raw: string) => (/^#(?:[0-9a-fA-F]{3}){1,2}$/.test(raw.trim()) ? raw.trim().toLowerCase() : undefined),
    fallback: '#2454d6',
  },
  SHUTDOWN_TIMEOUT: seconds('Grace period for in-flight requests on SIGTERM/SIGINT.', 10, 0, 600),
} satisfies Record<string, Setting<unknown>>;

type Settings = typeof settings;
type ValueOf<S> = S extends Setting<infer T> ? T : never;
export type Config = { readonly [K in keyof Settings]: ValueOf<Settings[K]> };

export const settingNames = Object.keys(settings) as (keyof Settings)[];

/** Parses and validates every setting; throws a ConfigError whose message names the first bad variable. */
export function parseConfig(env: Env): Config {
  const out: Record<string, unknown> = {};
  for (const name of settingNames) {
    const setting = settings[name] as Setting<unknown>;
    const raw = env[name];
    if (raw === undefined || raw === '') {
      out[name] = typeof setting.fallback === 'function' ? setting.fallback(out, env) : setting.fallback;
      continue;
    }
    const value = setting.parse(raw);
    if (value === undefined) {
      throw new ConfigError(`Invalid configuration: ${name} must be ${setting.expects} (got ${JSON.stringify(truncate(raw))})`);
    }
    out[name] = value;
  }
  const config = out as Config;
  if (config.NODE_ENV === 'production') {
    if (!config.KEY_ENCRYPTION_KEY) {
      throw new ConfigError('Invalid configuration: KEY_ENCRYPTION_KEY is required when NODE_ENV=production');
    }
    if (new URL(config.ISSUER).protocol !== 'https:' && !isLoopbackUrl(config.ISSUER)) {
      throw new ConfigError('Invalid configuration: ISSUER must be an https URL when NODE_ENV=production');
    }
  }
  return config;
}

/** Reads `.env` (if present) into process.env without overriding variables already set, then parses. */
export function loadConfig(envFile = '.env'): Config {
  if (existsSync(envFile)) process.loadEnvFile(envFile);
  return parseConfig(process.env);
}

function truncate(raw: string): string {
  return raw.length > 60 ? `${raw.slice(0, 57)}...` : raw;
}

/** Rows for the README table: name, default, doc. */
export function describeSettings(): { name: string; default: string; doc: string }[] {
  return settingNames.map((name) => {
    const s = settings[name] as Setting<unknown>;
    const def =
      s.docDefault ?? (typeof s.fallback === 'function' || s.fallback === undefined ? '' : formatDefault(s.fallback));
    return { name, default: def, doc: s.doc };
  });
}

function formatDefault(v: unknown): string {
  return Array.isArray(v) ? v.join(',') : String(v);
}
