// Every setting of Gatehouse, declared once: name, parser, default and a one-line doc, in tables by concern
// (src/config/*-settings.ts). The README's configuration table is generated from them (`npm run docs:config`),
// and only this module reads process.env.
import { existsSync } from 'node:fs';
import type { Env, Setting } from './config/setting.js';
import { loggingSettings, serverSettings, shutdownSettings, storeSettings } from './config/server-settings.js';
import { tokenSettings } from './config/token-settings.js';
import { retentionSettings } from './config/retention-settings.js';
import { overloadSettings, requestLimitSettings } from './config/limit-settings.js';
import { resourceApiSettings } from './config/api-settings.js';
import { clientSettings } from './config/client-settings.js';
import { openClientSettings } from './config/open-client-settings.js';
import { pageSettings } from './config/page-settings.js';
import { mailSettings } from './config/mail-settings.js';
import { webhookSettings } from './config/webhook-settings.js';

export class ConfigError extends Error {
  override readonly name = 'ConfigError';
}

const isLoopbackUrl = (url: string) => {
  const host = new URL(url).hostname;
  return host === 'localhost' || host === '127.0.0.1' || host === '[::1]';
};

// The order is the README table's, and the order settings are parsed in: a fallback reads only settings
// declared before it (ISSUER reads PORT, API_AUDIENCE reads ISSUER, DEMO_ENABLED reads NODE_ENV).
const settings = {
  ...serverSettings,
  ...storeSettings,
  ...loggingSettings,
  ...tokenSettings,
  ...retentionSettings,
  ...requestLimitSettings,
  ...resourceApiSettings,
  ...clientSettings,
  ...openClientSettings,
  ...overloadSettings,
  ...pageSettings,
  ...mailSettings,
  ...webhookSettings,
  ...shutdownSettings,
};

type Settings = typeof settings;
type ValueOf<S> = S extends Setting<infer T> ? T : never;
export type Config = { readonly [K in keyof Settings]: ValueOf<Settings[K]> };

const settingNames = Object.keys(settings) as (keyof Settings)[];

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
  const rotationMargin = config.JWKS_CACHE_TTL + config.KEY_REFRESH_INTERVAL + config.CLOCK_SKEW;
  if (config.KEY_ROTATION_INTERVAL > 0 && config.KEY_ROTATION_INTERVAL <= rotationMargin) {
    // A key rotated before the previous one signs would retire it unused (docs/key-rotation.md, "Limits").
    throw new ConfigError(
      `Invalid configuration: KEY_ROTATION_INTERVAL (${config.KEY_ROTATION_INTERVAL} s) must be longer than JWKS_CACHE_TTL + KEY_REFRESH_INTERVAL + CLOCK_SKEW (${rotationMargin} s), the time a rotated key waits before it signs`,
    );
  }
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
    const def = s.docDefault ?? (typeof s.fallback === 'function' || s.fallback === undefined ? '' : formatDefault(s.fallback));
    return { name, default: def, doc: s.doc };
  });
}

function formatDefault(v: unknown): string {
  return Array.isArray(v) ? v.join(',') : String(v);
}
