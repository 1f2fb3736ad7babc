// PATCH /v1/users/{id} with application/merge-patch+json (RFC 7396): the patch is applied to the
// writable view of the current user and the result must again be a valid user. On this typed resource
// a non-object patch, a change to a read-only member, or nulling a required member is 422 and the
// user stays unchanged (RFC 5789 §2.2 lets the server refuse a patch it cannot apply consistently).
import { Value } from '@sinclair/typebox/value';
import { mergePatch, type Json } from '../../http/merge-patch.js';
import { ProblemError, type FieldError } from '../../http/errors.js';
import { validationFailed } from '../../http/validation.js';
import { ReplaceUserSchema, type ReplaceUserBody, type UserRepresentation } from './user-schemas.js';

const READ_ONLY = ['id', 'created_at', 'updated_at', '_links'] as const;
const REQUIRED = ['username', 'email_verified', 'phone_number_verified'] as const;
const VERIFIED_PAIRS = [
  ['email', 'email_verified'],
  ['phone_number', 'phone_number_verified'],
] as const;

/** The members a client may change: the representation without its read-only members. */
function writableView(representation: UserRepresentation): Json {
  const view: Record<string, unknown> = { ...representation };
  for (const field of READ_ONLY) delete view[field];
  return view as Json;
}

const isObject = (value: unknown): value is Record<string, Json> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** The full replacement document this patch produces, or a 422/400 problem. */
export function patchedUser(representation: UserRepresentation, patch: unknown): ReplaceUserBody {
  if (!isObject(patch)) {
    throw validationFailed([{ field: '', message: 'a merge patch of a user must be a JSON object' }]);
  }
  const errors: FieldError[] = [];
  for (const field of READ_ONLY) {
    if (Object.hasOwn(patch, field) && JSON.stringify(patch[field]) !== JSON.stringify(representation[field])) {
      errors.push({ field, message: 'is read-only' });
    }
  }
  for (const field of [...REQUIRED, 'password']) {
    if (Object.hasOwn(patch, field) && patch[field] === null) errors.push({ field, message: 'is required and cannot be removed' });
  }
  if (errors.length > 0) throw validationFailed(errors);

  const merged = mergePatch(writableView(representation), patch) as Record<string, Json>;
  // A new address arrives unverified: the flag copied from the current representation was about the old one.
  for (const [address, flag] of VERIFIED_PAIRS) {
    if (Object.hasOwn(patch, address) && !Object.hasOwn(patch, flag)) delete merged[flag];
  }
  const document: Record<string, unknown> = {};
  for (const key of Object.keys(ReplaceUserSchema.properties)) if (Object.hasOwn(merged, key)) document[key] = merged[key];
  const typeErrors = [...Value.Errors(ReplaceUserSchema, document)].map((e) => ({
    field: e.path.replace(/^\//, '').replace(/\//g, '.') || 'body',
    message: e.message,
  }));
  if (typeErrors.length > 0) throw new ProblemError('bad-request', 'The patched user does not have the expected shape.', { errors: typeErrors });
  return document as ReplaceUserBody;
}
