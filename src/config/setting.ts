// The shape of one setting and the parsers the settings tables share (src/config/*-settings.ts).
// A parser returns the value, or undefined when the raw text is unacceptable.

export type Env = Record<string, string | undefined>;

export interface Setting<T> {
  readonly doc: string;
  /** Human description of what is accepted, used in error messages and the README. */
  readonly expects: string;
  /** Returns the parsed value, or undefined when the raw value is unacceptable. */
  readonly parse: (raw: string) => T | undefined;
  /** A fixed default, or one derived from settings parsed before it (declaration order). */
  readonly fallback?: T | ((partial: Record<string, unknown>, env: Env) => T | undefined);
  readonly docDefault?: string;
}

export const int = (min: number, max: number) => (raw: string) => {
  if (!/^-?\d+$/.test(raw.trim())) return undefined;
  const n = Number(raw);
  return Number.isSafeInteger(n) && n >= min && n <= max ? n : undefined;
};
export const bool = (raw: string) => {
  const v = raw.trim().toLowerCase();
  if (['1', 'true', 'yes', 'on'].includes(v)) return true;
  if (['0', 'false', 'no', 'off'].includes(v)) return false;
  return undefined;
};
export const oneOf =
  <const T extends string>(...values: T[]) =>
  (raw: string) =>
    values.includes(raw as T) ? (raw as T) : undefined;
export const nonEmpty = (raw: string) => (raw.trim() === '' ? undefined : raw.trim());
export const httpUrl = (raw: string) => {
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
export const logoUrl = (raw: string) => {
  const value = raw.trim();
  if (/^\/(?!\/)[^\s"'<>\\]*$/.test(value)) return value;
  try {
    const u = new URL(value);
    return u.protocol === 'https:' && !u.username && !u.password && !/["'<>\s\\]/.test(value) ? u.href : undefined;
  } catch {
    return undefined;
  }
};
export const postgresUrl = (raw: string) => (/^postgres(ql)?:\/\//.test(raw) || /^pglite:/i.test(raw) ? raw : undefined);
export const redisUrl = (raw: string) => (/^rediss?:\/\//.test(raw) ? raw : undefined);
export const base64Key = (raw: string) => {
  const bytes = Buffer.from(raw, 'base64url');
  return bytes.length === 32 && /^[A-Za-z0-9_-]+={0,2}$/.test(raw.replace(/[+/]/g, '_')) ? raw : undefined;
};
export const list = (raw: string) =>
  raw
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
export const currencies = (raw: string) => {
  const codes = list(raw);
  return codes.length > 0 && codes.every((c) => /^[A-Z]{3}$/.test(c)) ? codes : undefined;
};

export const seconds = (doc: string, fallback: number, min = 1, max = 31_536_000): Setting<number> => ({
  doc,
  expects: `an integer number of seconds between ${min} and ${max}`,
  parse: int(min, max),
  fallback,
});
export const perMinute = (doc: string, fallback: number): Setting<number> => ({
  doc,
  expects: 'a positive integer (requests per minute)',
  parse: int(1, 1_000_000),
  fallback,
});

const UNIT_SECONDS: Record<string, number> = { s: 1, m: 60, h: 3600, d: 86_400, w: 604_800 };
/** `off`, or an integer with a unit (s, m, h, d, w): `90d`, `12h`. Seconds; 0 = off. */
export const durationOrOff = (doc: string, min: number): Setting<number> => ({
  doc,
  expects: `"off" or an integer followed by s, m, h, d or w (e.g. 90d), at least ${min} seconds`,
  parse: (raw) => {
    const value = raw.trim().toLowerCase();
    if (value === 'off') return 0;
    const match = /^(\d{1,9})([smhdw])$/.exec(value);
    if (!match) return undefined;
    const total = Number(match[1]) * UNIT_SECONDS[match[2]!]!;
    return total >= min ? total : undefined;
  },
  fallback: 0,
  docDefault: 'off',
});
