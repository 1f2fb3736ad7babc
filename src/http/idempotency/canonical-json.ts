// Canonical JSON for request fingerprints: object keys sorted (recursively), no insignificant
// whitespace, so `{"a":1,"b":2}` and `{ "b": 2, "a": 1 }` are the same request body. The recursion is
// bounded by MAX_JSON_DEPTH: a deeper value is refused, never allowed to overflow the stack.
import { MAX_JSON_DEPTH, tooDeep } from '../json-depth.js';

export function canonicalJson(value: unknown, depth = 0): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value ?? null);
  if (depth >= MAX_JSON_DEPTH) throw tooDeep();
  if (Array.isArray(value)) return `[${value.map((item) => canonicalJson(item, depth + 1)).join(',')}]`;
  const entries = Object.entries(value as Record<string, unknown>)
    .filter(([, v]) => v !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v, depth + 1)}`).join(',')}}`;
}
