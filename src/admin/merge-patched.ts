// PATCH (RFC 7396) of an admin resource, as a PUT document: the patch is applied to the writable members
// as a PUT would carry them, and the result is checked as a PUT body is. Members a client read may be sent
// back unchanged (so it can patch the document it read); changing a read-only one is 422, a member the
// resource does not have is 422, a result of the wrong shape 400.
import type { Static, TObject } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import { ProblemError, type FieldError } from '../http/errors.js';
import { mergePatch, type Json } from '../http/merge-patch.js';
import { validationFailed } from '../http/validation.js';

export interface PatchTarget<Document extends TObject> {
  /** The resource in messages: "a merge patch of a client …", "is not a client member". */
  name: string;
  /** The PUT body's schema: its properties are the writable members. */
  schema: Document;
  /** The representation as read: read-only members are compared with it. */
  view: Record<string, unknown>;
  /** The writable members now, as a PUT would carry them. */
  writable: Record<string, unknown>;
  /** Also drop members the patch made null (for documents whose optional members are absent, never null). */
  dropNull?: boolean;
  /** Why a member cannot be patched, where "is read-only" would not help (`password`: set elsewhere). */
  hints?: Record<string, string>;
}

const isObject = (value: unknown): value is Record<string, Json> => typeof value === 'object' && value !== null && !Array.isArray(value);

// Own members only: a patch member named `constructor` must not find Object's.
const hintFor = (target: PatchTarget<TObject>, field: string) => (target.hints && Object.hasOwn(target.hints, field) ? target.hints[field] : undefined);

/** The full document this merge patch produces. */
export function mergePatched<Document extends TObject>(patch: unknown, target: PatchTarget<Document>): Static<Document> {
  const { name, schema, view } = target;
  if (!isObject(patch)) throw validationFailed([{ field: '', message: `a merge patch of a ${name} must be a JSON object` }]);
  const writableFields = Object.keys(schema.properties);
  const errors: FieldError[] = Object.keys(patch)
    .filter((field) => !writableFields.includes(field) && (!(field in view) || JSON.stringify(patch[field]) !== JSON.stringify(view[field])))
    .map((field) => ({ field, message: hintFor(target, field) ?? (field in view ? 'is read-only' : `is not a ${name.replaceAll(' ', '-')} member`) }));
  if (errors.length > 0) throw validationFailed(errors);
  const merged = mergePatch(target.writable as Json, patch) as Record<string, unknown>;
  const kept = (value: unknown) => value !== undefined && !(target.dropNull && value === null);
  const document = Object.fromEntries(writableFields.filter((f) => kept(merged[f])).map((f) => [f, merged[f]]));
  const typeErrors = [...Value.Errors(schema, document)].map((e) => ({ field: e.path.replace(/^\//, '').replace(/\//g, '.') || 'body', message: e.message }));
  if (typeErrors.length > 0) throw new ProblemError('bad-request', `The patched ${name} does not have the expected shape.`, { errors: typeErrors });
  return document as Static<Document>;
}
