// What each route of a resource demands: scopes (every one listed), and optionally a step-up (one of the
// listed acr values, RFC 9470). Written `METHOD PATH=SCOPES[;acr=VALUE VALUE…]`:
//   "GET /notes*=notes:read"            GET on /notes and below needs notes:read
//   "POST,PUT /notes*=notes:write"      several methods
//   "* /admin*=notes:admin;acr=mfa"     any method; the user must have signed in with acr `mfa`
//   "GET /health="                      a token, no particular scope
// A trailing `*` makes the path a prefix; otherwise it is exact. The most specific rule wins (the longest
// path; an exact path before a prefix of the same length); a request no rule matches needs a valid token
// and no scope. Paths are compared after percent-decoding of unreserved characters and without query.

export interface RouteRequirement {
  scopes: readonly string[];
  /** One of these acr values is required (step-up); empty = none. */
  acr: readonly string[];
}

export interface RouteRule extends RouteRequirement {
  methods: readonly string[] | '*';
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
  return { methods, path: prefix ? pathPart.slice(0, -1) : pathPart, prefix, scopes, acr, source: trimmed };
}

/** The requirement of a request; the most specific matching rule, or `fallback` (a token, no scope). */
export function routeRequirement(
  rules: readonly RouteRule[],
  method: string,
  path: string,
  fallback: RouteRequirement = { scopes: [], acr: [] },
): RouteRequirement {
  let best: RouteRule | undefined;
  const upper = method.toUpperCase();
  for (const rule of rules) {
    if (rule.methods !== '*' && !rule.methods.includes(upper) && !(upper === 'HEAD' && rule.methods.includes('GET'))) continue;
    if (rule.prefix ? !path.startsWith(rule.path) : path !== rule.path) continue;
    if (!best || rule.path.length > best.path.length || (rule.path.length === best.path.length && best.prefix && !rule.prefix)) best = rule;
  }
  return best ?? fallback;
}

/**
 * The request path as rules see it: the path of the URL without query, with `.`/`..` segments resolved and
 * percent-encoded unreserved characters decoded, so `/notes/%2E%2E/admin` cannot slip past a rule for `/admin*`.
 * The proxy forwards this same normalised path, never the raw one.
 */
export function normalisedPath(url: string): string {
  const parsed = new URL(url, 'http://resource.invalid');
  return parsed.pathname.replace(/%(2[DdEe]|5[Ff]|7[Ee]|[46][1-9A-Fa-f]|[57][0-9Aa]|3[0-9])/g, (encoded) => decodeURIComponent(encoded));
}
