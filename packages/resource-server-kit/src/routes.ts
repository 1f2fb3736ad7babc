// What each route of a resource demands: scopes (every one listed), and optionally a step-up (one of the
// listed acr values, RFC 9470). Written `METHOD PATH=SCOPES[;acr=VALUE VALUE…]`:
//   "GET /notes*=notes:read"            GET on /notes and below needs notes:read
//   "POST,PUT /notes*=notes:write"      several methods
//   "* /admin*=notes:admin;acr=mfa"     any method; the user must have signed in with acr `mfa`
//   "GET /health="                      a token, no particular scope
// A trailing `*` makes the path a prefix; otherwise it is exact.
//
// Which rule applies is decided for the upstream we cannot see (docs/protect.md, "Route matching"): the path is
// first normalised (requestTarget), refusing what upstreams read differently; then the most specific rule
// (longest path; exact before a prefix of the same length) is found under each reading an upstream may apply —
// exactly, case-folded (Express, ASP.NET, IIS), with the trailing slash toggled (Express, Spring serve /a and /a/
// alike), both — and the request must satisfy all of them. The exact interpretation is always among them, so a lenient reading can add
// requirements, never remove one; a longer rule found only by a lenient reading does not out-rank the stricter
// one the exact reading found.

export interface RouteRequirement {
  scopes: readonly string[];
  /** One of these acr values is required (step-up); empty = none. */
  acr: readonly string[];
  /**
   * Set when rules that may apply demand acr values no single sign-in has (e.g. `/Admin*` wants `hwk`,
   * `/admin*` wants `mfa`): nothing satisfies the request.
   */
  acrConflict?: true;
}

export interface RouteRule extends RouteRequirement {
  methods: readonly string[] | '*';
  /** Normalised like a request path (normalisePath). */
  path: string;
  prefix: boolean;
  /** The rule as written, for errors and logs. */
  source: string;
}

const METHOD = /^[A-Z]+$/;
const SCOPE = /^[\x21\x23-\x5B\x5D-\x7E]+$/;

export class RouteSyntaxError extends Error {
  override readonly name = 'RouteSyntaxError';
}

export function parseRoute(source: string): RouteRule {
  const trimmed = source.trim();
  const space = trimmed.indexOf(' ');
  const equals = trimmed.indexOf('=');
  if (space <= 0 || equals < space) throw new RouteSyntaxError(`route "${source}": expected METHOD PATH=SCOPES, e.g. "GET /notes*=notes:read"`);
  const methodPart = trimmed.slice(0, space);
  const pathPart = trimmed.slice(space + 1, equals).trim();
  const [scopePart = '', ...options] = trimmed.slice(equals + 1).split(';');
  const methods = methodPart === '*' ? '*' : methodPart.split(',').map((m) => m.trim().toUpperCase());
  if (methods !== '*' && (methods.length === 0 || !methods.every((m) => METHOD.test(m))))
    throw new RouteSyntaxError(`route "${source}": the method must be *, or names like GET or GET,HEAD`);
  if (!pathPart.startsWith('/') || /[\s?#]/.test(pathPart) || pathPart.slice(0, -1).includes('*'))
    throw new RouteSyntaxError(`route "${source}": the path must start with / and may end with * (no query, no other *)`);
  const scopes = scopePart.split(' ').filter(Boolean);
  if (!scopes.every((s) => SCOPE.test(s))) throw new RouteSyntaxError(`route "${source}": a scope contains a character scopes may not have`);
  let acr: string[] = [];
  for (const option of options) {
    const match = /^\s*acr=(.+)$/.exec(option);
    if (!match) throw new RouteSyntaxError(`route "${source}": after ";" only acr=VALUE is understood`);
    acr = match[1]!.split(' ').filter(Boolean);
    if (acr.length === 0 || !acr.every((a) => SCOPE.test(a))) throw new RouteSyntaxError(`route "${source}": acr= needs at least one value`);
  }
  const prefix = pathPart.endsWith('*');
  // The rule's path is normalised as requests are, so `/caf%C3%A9` and `/%61dmin` mean what they say; a path no
  // request could be normalised to (`;`, `%2F`, `\`) could never match and is a mistake.
  const path = normalisePath(prefix ? pathPart.slice(0, -1) : pathPart);
  if (typeof path !== 'string') throw new RouteSyntaxError(`route "${source}": ${path.description}`);
  return { methods, path, prefix, scopes, acr, source: trimmed };
}

// ASCII only: a non-ASCII character stays percent-encoded after normalisation, so there is nothing else to fold.
const foldCase = (path: string) => path.replace(/[A-Z]+/g, (upper) => upper.toLowerCase());

/** The same path with its trailing slash toggled: what a lenient upstream serves as the same resource. */
const otherSlash = (path: string) => (path === '/' ? path : path.endsWith('/') ? path.slice(0, -1) : `${path}/`);

const methodMatches = (rule: RouteRule, method: string) =>
  rule.methods === '*' || rule.methods.includes(method) || (method === 'HEAD' && rule.methods.includes('GET'));

// A rule's folded path, computed once per rule object (this runs on every request).
const foldedPaths = new WeakMap<RouteRule, string>();
function foldedPath(rule: RouteRule): string {
  let folded = foldedPaths.get(rule);
  if (folded === undefined) foldedPaths.set(rule, (folded = foldCase(rule.path)));
  return folded;
}

/** The most specific rule for `path`: the longest path, an exact rule before a prefix of the same length. */
function mostSpecific(rules: readonly RouteRule[], method: string, path: string, fold: boolean): RouteRule | undefined {
  let best: RouteRule | undefined;
  const request = fold ? foldCase(path) : path;
  for (const rule of rules) {
    if (!methodMatches(rule, method)) continue;
    const rulePath = fold ? foldedPath(rule) : rule.path;
    if (rule.prefix ? !request.startsWith(rulePath) : request !== rulePath) continue;
    if (!best || rule.path.length > best.path.length || (rule.path.length === best.path.length && best.prefix && !rule.prefix)) best = rule;
  }
  return best;
}

/**
 * The requirement of a request (its method and normalised path): what the most specific rule under every
 * interpretation demands, together — every scope any of them names, and an acr every one of them accepts. No rule
 * under any reading: `fallback` (a token, no scope). Several methods (the request's and the one a method override
 * names) are readings too: the rules of each apply.
 */
export function routeRequirement(
  rules: readonly RouteRule[],
  method: string | readonly string[],
  path: string,
  fallback: RouteRequirement = { scopes: [], acr: [] },
): RouteRequirement {
  const applying = new Set<RouteRule>();
  // The readings: the path as sent and with its trailing slash toggled, each compared exactly and case-folded.
  for (const each of typeof method === 'string' ? [method] : method)
    for (const spelling of [path, otherSlash(path)])
      for (const fold of [false, true]) {
        const rule = mostSpecific(rules, each.toUpperCase(), spelling, fold);
        if (rule) applying.add(rule);
      }
  if (applying.size === 0) return fallback;
  if (applying.size === 1) return [...applying][0]!;
  const scopes = new Set<string>();
  let acr: string[] | undefined;
  for (const rule of applying) {
    for (const scope of rule.scopes) scopes.add(scope);
    if (rule.acr.length > 0) acr = acr === undefined ? [...rule.acr] : acr.filter((value) => rule.acr.includes(value));
  }
  if (acr !== undefined && acr.length === 0) {
    const wanted = [...new Set([...applying].flatMap((r) => r.acr))];
    return { scopes: [...scopes], acr: wanted, acrConflict: true };
  }
  return { scopes: [...scopes], acr: acr ?? [] };
}

/** Why a request target is refused: it means different things to different upstreams. */
export interface AmbiguousPath {
  description: string;
}

export interface RequestTarget {
  /** The normalised path: what rules are matched against and what a proxy forwards. */
  path: string;
  /** The query as received, with its `?`, or ''. */
  search: string;
}

const HEX = '0123456789ABCDEF';
const isUnreserved = (byte: number) =>
  (byte >= 0x41 && byte <= 0x5a) ||
  (byte >= 0x61 && byte <= 0x7a) ||
  (byte >= 0x30 && byte <= 0x39) ||
  byte === 0x2d ||
  byte === 0x2e ||
  byte === 0x5f ||
  byte === 0x7e;
// The rest of RFC 3986's pchar (sub-delims, `:`, `@`; `;` is refused): allowed raw in a segment, and decoded
// before routing by Flask/Werkzeug, Spring, ASP.NET Core and Go, so `/notes%3Apurge` is `/notes:purge` to them
// and must be to the rules. `%2F`, `%5C`, `%3B` stay refused, `%3F`, `%23`, `%25` encoded (decoding them would
// change the request's structure).
const isPathDelimiter = (byte: number) => byte === 0x21 || byte === 0x24 || (byte >= 0x26 && byte <= 0x2c) || byte === 0x3d || byte === 0x3a || byte === 0x40;
// RFC 3986 pchar without `;` (a path parameter to Tomcat and Spring, `/admin/..;/x`), plus `/`; `%` is checked
// apart. Nothing else — backslash, space, controls, non-ASCII — may appear unencoded.
const RAW_ALLOWED = /^[A-Za-z0-9\-._~!$&'()*+,=:@/%]*$/;
const utf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * A path (no query) normalised, or why it is refused. Percent-encoded characters a segment may hold raw
 * (unreserved, sub-delims, `:`, `@`) are decoded and other escapes written in upper case; `.` and `..` segments (encoded or not) are resolved; empty segments
 * (`//`) are dropped, a trailing slash kept. Refused because upstreams disagree on them: an encoded `/` or `\`,
 * a backslash, `;` (raw or encoded), a control character or NUL (raw or encoded), a `%` not followed by two
 * hex digits, an escape sequence that is not UTF-8.
 */
export function normalisePath(raw: string): string | AmbiguousPath {
  if (!raw.startsWith('/')) return { description: 'The request path must start with /.' };
  if (!RAW_ALLOWED.test(raw)) return { description: 'The request path contains a character that must be percent-encoded, a backslash or a ";".' };
  // The common case, checked once: no escape, no dot segment, no empty segment — already normal.
  if (!raw.includes('%') && !raw.includes('/.') && !raw.includes('//')) return raw;
  let decoded = '';
  let escapedBytes: number[] | undefined;
  for (let i = 0; i < raw.length; i++) {
    const char = raw[i]!;
    if (char !== '%') {
      decoded += char;
      continue;
    }
    const hex = raw.slice(i + 1, i + 3);
    if (!/^[0-9A-Fa-f]{2}$/.test(hex)) return { description: 'The request path has an invalid percent-encoding.' };
    const byte = Number.parseInt(hex, 16);
    i += 2;
    if (byte === 0x2f || byte === 0x5c) return { description: 'The request path contains an encoded / or \\.' };
    if (byte === 0x3b) return { description: 'The request path contains an encoded ";".' };
    if (byte < 0x20 || byte === 0x7f) return { description: 'The request path contains an encoded control character.' };
    if (byte >= 0x80) (escapedBytes ??= []).push(byte);
    decoded += isUnreserved(byte) || isPathDelimiter(byte) ? String.fromCharCode(byte) : `%${HEX[byte >> 4]}${HEX[byte & 15]}`;
  }
  // Upstreams that decode non-UTF-8 escapes replace, drop or keep them: each a different path.
  if (escapedBytes !== undefined && !validUtf8InPlace(decoded)) return { description: 'The request path has an escape sequence that is not UTF-8.' };
  const segments: string[] = [];
  const parts = decoded.split('/');
  for (let i = 1; i < parts.length; i++) {
    const segment = parts[i]!;
    const last = i === parts.length - 1;
    if (segment === '..') segments.pop();
    if (segment === '.' || segment === '..' || segment === '') {
      if (last) segments.push('');
      continue;
    }
    segments.push(segment);
  }
  const path = `/${segments.join('/')}`;
  return path === '//' ? '/' : path;
}

/** Every run of escapes above 0x7F decodes as UTF-8 (checked on runs, as a run may hold one character). */
function validUtf8InPlace(path: string): boolean {
  for (const run of path.match(/(?:%[89A-F][0-9A-F])+/g) ?? []) {
    const bytes = new Uint8Array(run.length / 3);
    for (let i = 0; i < bytes.length; i++) bytes[i] = Number.parseInt(run.slice(i * 3 + 1, i * 3 + 3), 16);
    try {
      utf8.decode(bytes);
    } catch {
      return false;
    }
  }
  return true;
}

/**
 * Whether a raw path has a segment normalisation would resolve away: `.` or `..` (raw, or with `%2e` in any case)
 * or an empty one (`//`; a trailing slash is not one). Harmless where the normalised path is what gets routed
 * (`protect` forwards it); fatal in process, where the framework routes the raw path: `/files/secret/../x` is
 * `/files/x` to the rules and the `/files/secret/*` handler to Fastify or Express.
 */
function unresolvedSegment(raw: string): boolean {
  if (!raw.includes('/.') && !raw.includes('//') && !/\/%2e/i.test(raw)) return false;
  const parts = raw.split('/');
  for (let i = 1; i < parts.length; i++) {
    const segment = parts[i]!.replace(/%2e/gi, '.');
    if (segment === '.' || segment === '..' || (segment === '' && i < parts.length - 1)) return true;
  }
  return false;
}

export interface RequestTargetOptions {
  /**
   * The caller routes the raw path itself (the kit in process: the Fastify plugin, verifyRequest without a
   * target), so a path that normalises to another one cannot be made safe by normalising it: `.`, `..` and empty
   * segments are refused.
   */
  routedAsSent?: boolean;
}

/**
 * A request target (origin-form `/p?q`, or absolute-form `http://host/p?q`) parsed once: the normalised path and
 * the query, or why it is refused. A fragment is refused (clients never send one).
 */
export function requestTarget(url: string, options: RequestTargetOptions = {}): RequestTarget | AmbiguousPath {
  let rest = url;
  if (!rest.startsWith('/')) {
    const absolute = /^https?:\/\/[^/?#]*/i.exec(rest);
    if (!absolute) return { description: 'The request target must be a path or an absolute http URL.' };
    rest = rest.slice(absolute[0].length) || '/';
  }
  if (rest.includes('#')) return { description: 'The request target must not carry a fragment.' };
  const question = rest.indexOf('?');
  const rawPath = question < 0 ? rest : rest.slice(0, question);
  if (options.routedAsSent && unresolvedSegment(rawPath))
    return { description: 'The request path has a ".", ".." or empty segment; send the path without them.' };
  const path = normalisePath(rawPath);
  if (typeof path !== 'string') return path;
  return { path, search: question < 0 ? '' : rest.slice(question) };
}

export const isAmbiguous = (target: RequestTarget | AmbiguousPath | string): target is AmbiguousPath => typeof target !== 'string' && 'description' in target;

/**
 * The request path as rules see it (requestTarget's path). Kept for callers that only want the path; an
 * ambiguous path throws — use requestTarget to refuse it properly.
 */
export function normalisedPath(url: string): string {
  const target = requestTarget(url);
  if (isAmbiguous(target)) throw new RouteSyntaxError(target.description);
  return target.path;
}
