// Reads the authorization request's parameters from the query (GET) or form body (POST).
// RFC 6749 3.1: parameters sent without a value are treated as omitted, and no parameter may be
// included more than once. Duplicates are remembered, not resolved: each check decides what they mean.
export interface RequestParameters {
  /** Single, non-empty values only. */
  readonly values: Readonly<Record<string, string>>;
  readonly duplicates: ReadonlySet<string>;
}

export function readParameters(source: unknown): RequestParameters {
  const values: Record<string, string> = {};
  const duplicates = new Set<string>();
  if (source && typeof source === 'object') {
    for (const [name, raw] of Object.entries(source as Record<string, unknown>)) {
      const present = (Array.isArray(raw) ? raw : [raw]).filter((v): v is string => typeof v === 'string' && v !== '');
      if (present.length > 1) duplicates.add(name);
      else if (present.length === 1) values[name] = present[0]!;
    }
  }
  return { values, duplicates };
}
