// JSON Merge Patch, RFC 7396 §2 exactly: a non-object patch replaces the target whole; in an object
// patch, `null` removes a member, objects merge recursively and everything else (arrays included)
// replaces. Pure and non-mutating; the result shares no objects with either input. Both documents are
// first checked (without recursion) to nest at most MAX_JSON_DEPTH levels, which bounds the recursion here
// and in structuredClone.
import { assertValueDepth } from './json-depth.js';

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

const isObject = (value: unknown): value is { [key: string]: Json } => typeof value === 'object' && value !== null && !Array.isArray(value);

export function mergePatch(target: Json, patch: Json): Json {
  assertValueDepth(patch);
  assertValueDepth(target);
  return merge(target, patch);
}

function merge(target: Json, patch: Json): Json {
  if (!isObject(patch)) return clone(patch);
  const result: { [key: string]: Json } = isObject(target) ? clone(target) : {};
  for (const [name, value] of Object.entries(patch)) {
    if (value === null) delete result[name];
    // defineProperty, not assignment: a member named `__proto__` stays data, never a prototype.
    else
      Object.defineProperty(result, name, {
        value: merge(Object.hasOwn(result, name) ? result[name]! : null, value),
        enumerable: true,
        writable: true,
        configurable: true,
      });
  }
  return result;
}

const clone = <T extends Json>(value: T): T => structuredClone(value);
