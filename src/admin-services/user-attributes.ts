// Users' custom attributes, written once for the CLI (`gatehouse users set-attribute|delete-attribute`) and
// the admin API (`attributes` of /admin/v1/users, checked by checkedAttributes and written by users-service.ts
// in the user's version-guarded UPDATE): typed JSON values under names that can become claims
// (docs/resource-servers.md, "Claims").
// A name the server sets itself (sub, aud, scope, acr, …) or a standard OpenID Connect claim (email, …) is
// refused here, and ignored again at issuance (src/oauth/resources/claims.ts).
import type { Clock } from '../clock.js';
import type { Store } from '../storage/store.js';
import type { AuditSink } from '../audit/audit-sink.js';
import { claimNameProblem } from '../oauth/resources/claims.js';
// Members in one order: jsonb keeps its own order, a request its own.
import { canonicalJson } from '../http/idempotency/index.js';
import type { ActingAs } from './clients-service.js';
import { AdminFieldErrors, AdminRuleError } from './rule-error.js';
import { userChangeEvent } from './user-events.js';

/** Attributes per user. */
export const MAX_ATTRIBUTES = 50;
/** Bytes of one value, serialised as JSON. */
export const MAX_ATTRIBUTE_VALUE_BYTES = 4096;
/** Bytes of all of a user's attributes together: every one may end up in the same token. */
export const MAX_ATTRIBUTES_TOTAL_BYTES = 16_384;
/** Nesting of arrays and objects in one value (`[1]` is 1, `{"a":[1]}` is 2). */
const MAX_ATTRIBUTE_DEPTH = 5;

export interface UserAttributeDeps {
  store: Store;
  clock: Clock;
  audit: AuditSink;
}

/** The CLI's VALUE: typed JSON (`42`, `true`, `"text"`, `["a"]`, `{"k":1}`); anything that is not JSON is a string. */
export function parseAttributeValue(raw: string): unknown {
  // Longer than any acceptable value: not worth parsing (validateAttribute refuses it either way).
  if (raw.length > MAX_ATTRIBUTE_VALUE_BYTES * 2) return raw;
  try {
    return JSON.parse(raw) as unknown;
  } catch {
    return raw;
  }
}

function tooDeep(value: unknown, depth: number): boolean {
  if (value === null || typeof value !== 'object') return false;
  if (depth >= MAX_ATTRIBUTE_DEPTH) return true;
  const children = Array.isArray(value) ? value : Object.values(value);
  return children.some((child) => tooDeep(child, depth + 1));
}

/** Whether some leaf of the value (a string, number, boolean or null), or some member name, passes `test`. */
function someLeaf(value: unknown, test: (leaf: unknown) => boolean): boolean {
  if (value === null || typeof value !== 'object') return test(value);
  return Object.entries(value).some(([key, child]) => test(key) || someLeaf(child, test));
}

const anyText = (value: unknown, pattern: RegExp) => someLeaf(value, (leaf) => typeof leaf === 'string' && pattern.test(leaf));

export function attributeNameProblem(name: string): AdminRuleError | undefined {
  const problem = claimNameProblem(name);
  return problem ? new AdminRuleError('invalid', `${JSON.stringify(name.slice(0, 64))} ${problem}`, 'name', name.slice(0, 64)) : undefined;
}

/** The value serialised, once it is known to be a storable attribute. */
function validateAttribute(name: string, value: unknown): string {
  const nameProblem = attributeNameProblem(name);
  if (nameProblem) throw nameProblem;
  if (value === null || value === undefined) throw new AdminRuleError('invalid', 'The value must not be null; delete the attribute instead', 'value');
  // JSON has no Infinity or NaN (JSON.parse reads 1e400 as Infinity): JSON.stringify would store null instead.
  if (someLeaf(value, (leaf) => typeof leaf === 'number' && !Number.isFinite(leaf)))
    throw new AdminRuleError('invalid', 'The value must be JSON (numbers are finite)', 'value');
  if (!['string', 'number', 'boolean', 'object'].includes(typeof value)) throw new AdminRuleError('invalid', 'The value must be JSON', 'value');
  if (tooDeep(value, 0)) throw new AdminRuleError('invalid', `The value nests arrays and objects more than ${MAX_ATTRIBUTE_DEPTH} deep`, 'value');
  const json = JSON.stringify(value);
  // PostgreSQL's jsonb cannot hold the NUL character, and refuses the escape JSON.stringify writes for a
  // UTF-16 surrogate without its pair (in a key or a string).
  if (anyText(value, /\u0000/)) throw new AdminRuleError('invalid', 'The value must not contain the NUL character', 'value');
  if (anyText(value, /\p{Cs}/u)) throw new AdminRuleError('invalid', 'The value must be well-formed Unicode (a lone surrogate is not)', 'value');
  if (Buffer.byteLength(json) > MAX_ATTRIBUTE_VALUE_BYTES)
    throw new AdminRuleError('invalid', `The value is longer than ${MAX_ATTRIBUTE_VALUE_BYTES} bytes as JSON`, 'value');
  return json;
}

/** The names of the attributes added, changed or removed between two sets, sorted. */
export function changedAttributeNames(before: Readonly<Record<string, unknown>>, after: Readonly<Record<string, unknown>>): string[] {
  const names = new Set([...Object.keys(before), ...Object.keys(after)]);
  return [...names].filter((n) => !Object.hasOwn(before, n) || !Object.hasOwn(after, n) || canonicalJson(before[n]) !== canonicalJson(after[n])).sort();
}

/** Field errors listed at most, however many attributes a body refuses. */
const MAX_REPORTED = 20;

/**
 * The whole set of a user's attributes after an admin API create, PUT or merge patch, checked by the CLI's
 * rules and serialised; undefined when it equals `current` (nothing to write). The count and the total size
 * hold for the result (the total measured as the CLI's UPDATE measures it: jsonb's text, by the database);
 * each attribute added or changed passes validateAttribute, one left as it is stays (as the CLI leaves it),
 * and one removed may have any name. Problems name `attributes.NAME`. The caller writes the result in the
 * same conditional UPDATE as the rest of the user, against the version `current` was read at.
 */
export async function checkedAttributes(
  store: Store,
  current: Readonly<Record<string, unknown>>,
  next: Readonly<Record<string, unknown>>,
): Promise<string | undefined> {
  const changed = changedAttributeNames(current, next);
  if (changed.length === 0) return undefined;
  if (Object.keys(next).length > MAX_ATTRIBUTES) throw new AdminRuleError('invalid', `A user has at most ${MAX_ATTRIBUTES} attributes`, 'attributes');
  const errors: { field: string; message: string }[] = [];
  for (const name of changed) {
    if (!Object.hasOwn(next, name)) continue;
    try {
      validateAttribute(name, next[name]);
    } catch (error) {
      if (!(error instanceof AdminRuleError)) throw error;
      if (errors.push({ field: `attributes.${name.slice(0, 64)}`, message: error.message }) >= MAX_REPORTED) break;
    }
  }
  if (errors.length > 0) throw new AdminFieldErrors(errors);
  const json = JSON.stringify(next);
  if ((await store.userAttributes.storedBytes(json)) > MAX_ATTRIBUTES_TOTAL_BYTES) {
    throw new AdminRuleError('invalid', `A user's attributes take at most ${MAX_ATTRIBUTES_TOTAL_BYTES} bytes together`, 'attributes');
  }
  return json;
}

/**
 * Adds or replaces one attribute; returns all of the user's attributes. The change and its audit event
 * (`admin.user.attribute_set`, naming `attributes.NAME`, never the value) commit together.
 */
export async function setUserAttribute(deps: UserAttributeDeps, userId: string, name: string, value: unknown, as: ActingAs): Promise<Record<string, unknown>> {
  const json = validateAttribute(name, value);
  return deps.store.transaction(async (tx) => {
    const result = await tx.userAttributes.set(userId, name, json, {
      maxCount: MAX_ATTRIBUTES,
      maxTotalBytes: MAX_ATTRIBUTES_TOTAL_BYTES,
    });
    switch (result.outcome) {
      case 'set':
        await deps.audit.emit(userChangeEvent('admin.user.attribute_set', userId, as, [`attributes.${name}`]), { tx });
        return result.attributes;
      case 'no-user':
        throw new AdminRuleError('not-found', 'No such user');
      case 'too-many':
        throw new AdminRuleError('invalid', `A user has at most ${MAX_ATTRIBUTES} attributes`, 'name', name);
      case 'too-large':
        throw new AdminRuleError('invalid', `A user's attributes take at most ${MAX_ATTRIBUTES_TOTAL_BYTES} bytes together`, 'value');
    }
  });
}

/** Removes one attribute; not-found when the user has no such attribute. */
export async function deleteUserAttribute(deps: UserAttributeDeps, userId: string, name: string, as: ActingAs): Promise<void> {
  // Any stored name can be removed (even one written behind this service's back), but not NUL, which no key holds.
  const missing = () => new AdminRuleError('not-found', `No attribute ${JSON.stringify(name.slice(0, 64))}`, 'name');
  if (name.includes('\u0000')) throw missing();
  await deps.store.transaction(async (tx) => {
    if (!(await tx.userAttributes.remove(userId, name))) throw missing();
    await deps.audit.emit(userChangeEvent('admin.user.attribute_deleted', userId, as, [`attributes.${name}`]), { tx });
  });
}
