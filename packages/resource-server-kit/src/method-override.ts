// Method override (docs/protect.md, "Method override"): Rails, Laravel, Symfony and Express's method-override
// run a POST carrying `X-HTTP-Method-Override: DELETE` (or `X-HTTP-Method`, `X-Method-Override`, or a `_method`
// query parameter) as a DELETE. The rules cannot know whether the upstream honours them, so — strictest wins under
// every reading — a request carrying one must also satisfy the rule of the method it names. A value that names no
// method is refused: an upstream might read it in a way the rules do not.

/** The headers frameworks read an overriding method from (lower case). */
export const METHOD_OVERRIDE_HEADERS = ['x-http-method-override', 'x-http-method', 'x-method-override'] as const;
/** The query parameter (Rails, Laravel, Symfony, Express's method-override with a getter). */
export const METHOD_OVERRIDE_PARAMETER = '_method';

/** The methods an override may name (RFC 9110 §9 and PATCH, RFC 5789). */
const KNOWN_METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'TRACE', 'CONNECT']);

export interface InvalidOverride {
  description: string;
}

/**
 * The methods a request's overrides name (upper case, none when it carries none), or why they are refused: a
 * value that is not exactly one known method (a list `DELETE, PUT`, a repeated header, `FOO`, an empty value).
 */
export function overridingMethods(header: (name: string) => string | undefined, search: string): string[] | InvalidOverride {
  const values: string[] = [];
  for (const name of METHOD_OVERRIDE_HEADERS) {
    const value = header(name);
    if (value !== undefined) values.push(value);
  }
  // Parsed, never searched as text: frameworks decode the name too, so `%5Fmethod=DELETE` is a `_method`.
  if (search.length > 1) values.push(...new URLSearchParams(search).getAll(METHOD_OVERRIDE_PARAMETER));
  if (values.length === 0) return [];
  const methods = new Set<string>();
  for (const value of values) {
    const method = value.trim().toUpperCase();
    if (!KNOWN_METHODS.has(method))
      return { description: 'The method override (X-HTTP-Method-Override, X-HTTP-Method, X-Method-Override or _method) does not name one HTTP method.' };
    methods.add(method);
  }
  return [...methods];
}
